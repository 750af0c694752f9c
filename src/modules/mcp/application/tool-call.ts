import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Tool, ToolMethod } from './tool-catalogue.js';

/** The HTTP request a tool call makes: to the route under the API prefix. */
export interface RouteRequest {
  method: ToolMethod;
  /** Path and query string, without the API prefix. */
  path: string;
  body?: Record<string, unknown>;
}

/** The answer of that request, as read off the wire. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

/** What a tool call answers an agent (MCP's CallToolResult). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ArgumentProblem {
  field: string;
  message: string;
}

// ajv-formats is CommonJS with a default export: under ESM it may come wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Checks tool arguments against each tool's input schema, compiled once. */
export class ToolArguments {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(tools: readonly Tool[]) {
    // OpenAPI's `example` is not a JSON Schema keyword: allowed, not checked.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const tool of tools) this.validators.set(tool.name, ajv.compile(tool.inputSchema));
  }

  /** The problems with `args`, in the API's `{field, message}` form; empty when they are valid. */
  problems(tool: Tool, args: unknown): ArgumentProblem[] {
    const validate = this.validators.get(tool.name);
    if (!validate) throw new Error(`no validator for MCP tool ${tool.name}`);
    if (validate(args ?? {})) return [];
    return (validate.errors ?? []).map(problemOf);
  }
}

function problemOf(error: ErrorObject): ArgumentProblem {
  const at = error.instancePath.split('/').filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return { field: at ? `${at}.${extra}` : extra, message: `property ${extra} should not exist` };
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return { field: at ? `${at}.${missing}` : missing, message: `${missing} is required` };
  }
  return { field: at || '(arguments)', message: `${at || 'arguments'} ${error.message ?? 'is invalid'}` };
}

/** The route request for valid arguments: path parameters encoded in, query parameters as text, the rest as the body. */
export function routeRequestOf(tool: Tool, args: Record<string, unknown>): RouteRequest {
  let path = tool.path;
  for (const name of tool.placement.path) path = path.replace(`{${name}}`, encodeURIComponent(textOf(args[name])));
  const query = new URLSearchParams();
  for (const name of tool.placement.query) if (args[name] !== undefined) query.set(name, textOf(args[name]));
  const search = query.toString();
  const request: RouteRequest = { method: tool.method, path: search ? `${path}?${search}` : path };
  if (tool.method !== 'GET') {
    request.body = Object.fromEntries(tool.placement.body.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));
  }
  return request;
}

/** A 2xx answer is the tool's result; any other is an error result carrying the route's error body unchanged. */
export function toolResultOf(answer: RouteAnswer): ToolResult {
  const text = JSON.stringify(answer.body ?? null);
  if (answer.status >= 200 && answer.status < 300) {
    const structured = isObject(answer.body) ? { structuredContent: answer.body } : {};
    return { content: [{ type: 'text', text }], ...structured };
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The error result for arguments the input schema refuses, shaped as the API's 400. */
export function invalidArgumentsResult(problems: ArgumentProblem[], requestId: string): ToolResult {
  return toolResultOf({
    status: 400,
    body: { statusCode: 400, code: 'validation_failed', message: 'The tool arguments are invalid.', details: problems, request_id: requestId },
  });
}

/** A scalar argument as URL text (the schemas admit only scalars in paths and queries). */
function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
