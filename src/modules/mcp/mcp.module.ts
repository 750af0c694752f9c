import { Module } from '@nestjs/common';
import { McpController } from './api/mcp.controller.js';
import { McpServerFactory } from './application/mcp-server.js';
import { McpTools } from './application/mcp-tools.js';
import { RouteCaller } from './application/route-caller.js';

/** The MCP server over the public API: an agent's tool calls become public API requests. */
@Module({
  controllers: [McpController],
  providers: [McpTools, McpServerFactory, RouteCaller],
  exports: [McpTools],
})
export class McpModule {}
