import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { AppError } from '../../../core/index.js';
import { MinRole, PublicApi } from '../../../platform/auth/index.js';
import { McpServerFactory } from '../application/mcp-server.js';

const JSON_RPC_MESSAGE: SchemaObject = {
  type: 'object',
  description: 'One JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, …); a batch (an array) is refused.',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    method: { type: 'string', example: 'tools/list' },
    params: { type: 'object', additionalProperties: true },
  },
  required: ['jsonrpc'],
  additionalProperties: false,
};

const JSON_RPC_ANSWER: SchemaObject = {
  type: 'object',
  description: 'The JSON-RPC 2.0 answer: `result`, or `error` for a protocol error. A tool the route refused answers a result with `isError: true`.',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    result: { type: 'object', additionalProperties: true },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
  },
  required: ['jsonrpc'],
  additionalProperties: true,
};

/**
 * The Model Context Protocol endpoint (Streamable HTTP, stateless): an agent drives the public API
 * with an API key. Each POST gets its own server and transport; a tool call runs the public route
 * itself (see RouteCaller), so its refusals are the route's. The handlers are named for their
 * operation ids (`mcp`, ...): the document builder names an operation after its controller method.
 */
@ApiTags('mcp')
@Controller('mcp')
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post()
  @PublicApi()
  @MinRole('viewer')
  @HttpCode(200)
  @ApiOperation({ summary: 'Model Context Protocol over Streamable HTTP (JSON answers, no session): the public API as tools.' })
  @ApiBody({ schema: JSON_RPC_MESSAGE })
  @ApiOkResponse({ description: 'The JSON-RPC answer (202 with no body for a notification).', schema: JSON_RPC_ANSWER })
  async mcp(@Req() req: Request, @Res() res: Response): Promise<void> {
    // One message per POST: the rate limit counts POSTs, and a tool call's route is not counted again.
    if (Array.isArray(req.body)) throw batchRefused();
    const server = this.servers.create({ authorization: req.headers.authorization ?? '', requestId: req.id });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  @Get()
  @PublicApi()
  @MinRole('viewer')
  // Streamable HTTP asks a stateless server to refuse these with 405; they are not operations of the API.
  @ApiExcludeEndpoint()
  mcpOpenStream(@Res({ passthrough: true }) res: Response): never {
    return refuse(res);
  }

  @Delete()
  @PublicApi()
  @MinRole('viewer')
  // Streamable HTTP asks a stateless server to refuse these with 405; they are not operations of the API.
  @ApiExcludeEndpoint()
  mcpEndSession(@Res({ passthrough: true }) res: Response): never {
    return refuse(res);
  }
}

/** A JSON-RPC batch (dropped from MCP in 2025-06-18): it would run many tools for one counted request. */
function batchRefused(): AppError {
  return new AppError('validation_failed', 'Send one JSON-RPC message per request: batches are not accepted.', [{ field: 'body', message: 'must be one JSON-RPC message, not an array' }]);
}

function refuse(res: Response): never {
  res.setHeader('Allow', 'POST');
  throw new AppError('method_not_allowed', 'The MCP endpoint is stateless: send every message with POST (no event stream, no session).');
}
