import { Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpTools } from './mcp-tools.js';
import { RouteCaller, type CallerCredentials } from './route-caller.js';
import { invalidArgumentsResult, routeRequestOf, toolResultOf } from './tool-call.js';

export const MCP_SERVER_NAME = 'persona-studio';

/** The version in the nearest package.json above this file (src/ in tests, dist/src/ when built). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return '0.0.0';
      dir = parent;
    }
  }
}

/**
 * Makes the MCP server for one HTTP request (the endpoint is stateless): tools/list answers the
 * catalogue, tools/call validates the arguments against the tool's schema and calls its route with
 * the caller's credentials. JSON-RPC request ids number the route calls' request ids.
 */
@Injectable()
export class McpServerFactory {
  private readonly version = packageVersion();

  constructor(
    private readonly tools: McpTools,
    private readonly routes: RouteCaller,
  ) {}

  create(credentials: CallerCredentials): Server {
    const server = new Server({ name: MCP_SERVER_NAME, version: this.version }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.tools.list().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = this.tools.find(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      const requestId = callRequestId(credentials.requestId, extra.requestId);
      const args = request.params.arguments ?? {};
      const problems = this.tools.arguments.problems(tool, args);
      if (problems.length > 0) return invalidArgumentsResult(problems, requestId);
      return toolResultOf(await this.routes.call(routeRequestOf(tool, args), { ...credentials, requestId }));
    });
    return server;
  }
}

/** `<MCP request id>.<JSON-RPC id>`, kept to what the request-id middleware accepts (`[A-Za-z0-9._:-]{1,64}`). */
export function callRequestId(httpRequestId: string, rpcId: string | number): string {
  const rpc = String(rpcId).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 20) || 'call';
  return `${httpRequestId.slice(0, 63 - rpc.length)}.${rpc}`;
}
