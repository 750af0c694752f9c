/**
 * The MCP tools: the public API's operations, one table. Each tool's input schema is read from the
 * served OpenAPI document (path and query parameters, and the request body's properties), so a tool
 * takes exactly what its route takes, made self-contained (no `$ref`) for an agent to read.
 */

export type ToolMethod = 'GET' | 'POST';

/** One row of the table: a tool and the public route it calls. */
export interface ToolRoute {
  name: string;
  description: string;
  method: ToolMethod;
  /** The route under the API prefix, with `{param}` placeholders as the OpenAPI document writes them. */
  path: string;
}

/** The public API as MCP tools. The job status is read through `get_content` (see docs/mcp.md). */
export const TOOL_ROUTES: readonly ToolRoute[] = [
  { name: 'list_characters', method: 'GET', path: '/public/characters', description: 'List the workspace\'s characters, a page at a time (scope characters:read).' },
  { name: 'create_character', method: 'POST', path: '/public/characters', description: 'Create a character (scope characters:write).' },
  { name: 'generate_content', method: 'POST', path: '/public/generate', description: 'Generate a content item for a character; costs credits and answers the item and its job (scope content:generate).' },
  { name: 'get_content', method: 'GET', path: '/public/content/{id}', description: 'Read a content item, with its status while its job runs (scope content:read).' },
  { name: 'get_job', method: 'GET', path: '/public/jobs/{id}', description: 'Read a job: status, progress, and the result or error once it ends (scope content:read).' },
  { name: 'publish', method: 'POST', path: '/public/publish', description: 'Publish approved content on a connected platform at once (scope content:publish).' },
  { name: 'get_credits', method: 'GET', path: '/public/credits', description: 'The workspace\'s credit balance and plan (scope credits:read).' },
];

export type JsonSchema = Record<string, unknown>;

/** Where each argument of a tool goes in its HTTP request. */
export interface ToolPlacement {
  path: string[];
  query: string[];
  body: string[];
}

export interface Tool extends ToolRoute {
  inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };
  placement: ToolPlacement;
}

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** The parts of an OpenAPI 3.0 document the catalogue reads. */
export interface OpenApiSource {
  paths: object;
  components?: { schemas?: object };
}

/** Every tool of the table, its input schema built from `doc` (whose paths carry `prefix`). */
export function buildToolCatalogue(doc: OpenApiSource, prefix: string, routes: readonly ToolRoute[] = TOOL_ROUTES): Tool[] {
  const names = new Set<string>();
  return routes.map((route) => {
    if (names.has(route.name)) throw new Error(`MCP tool ${route.name} is listed twice`);
    names.add(route.name);
    // Paths carry the API prefix, unless the document moves it into `servers`.
    const paths = doc.paths as Record<string, Record<string, unknown> | undefined>;
    const item = paths[`${prefix}${route.path}`] ?? paths[route.path];
    const operation = item?.[route.method.toLowerCase()] as OpenApiOperation | undefined;
    if (!operation) throw new Error(`MCP tool ${route.name}: ${route.method} ${route.path} is not in the OpenAPI document`);
    return { ...route, ...inputOf(operation, (doc.components?.schemas ?? {}) as Record<string, unknown>, route.name) };
  });
}

function inputOf(operation: OpenApiOperation, schemas: Record<string, unknown>, tool: string): Pick<Tool, 'inputSchema' | 'placement'> {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const placement: ToolPlacement = { path: [], query: [], body: [] };
  const add = (name: string, schema: JsonSchema, isRequired: boolean, where: keyof ToolPlacement) => {
    if (Object.hasOwn(properties, name)) throw new Error(`MCP tool ${tool}: argument ${name} appears twice`);
    properties[name] = schema;
    placement[where].push(name);
    if (isRequired) required.push(name);
  };
  // Headers (Idempotency-Key) are the HTTP client's business, not the agent's.
  for (const p of operation.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    const schema = resolveSchema(p.schema ?? {}, schemas);
    add(p.name, p.description && !schema.description ? { ...schema, description: p.description } : schema, p.in === 'path' || p.required === true, p.in);
  }
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    const body = resolveSchema(bodySchema, schemas);
    if (body.type !== 'object' || typeof body.properties !== 'object') throw new Error(`MCP tool ${tool}: the request body is not an object schema`);
    const bodyRequired = new Set((body.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(body.properties as Record<string, JsonSchema>)) add(name, schema, bodyRequired.has(name), 'body');
  }
  return {
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    placement,
  };
}

const REF = /^#\/components\/schemas\/([^/]+)$/;

/**
 * A self-contained JSON Schema: every `$ref` to components/schemas replaced by its target, OpenAPI
 * 3.0's `nullable` written as a type that admits null, and every object closed
 * (`additionalProperties: false`), as the API's validation refuses unknown properties.
 */
export function resolveSchema(schema: JsonSchema, schemas: Record<string, unknown>, seen: readonly string[] = []): JsonSchema {
  if (typeof schema.$ref === 'string') {
    const name = REF.exec(schema.$ref)?.[1];
    if (!name || !Object.hasOwn(schemas, name)) throw new Error(`unresolvable $ref ${schema.$ref}`);
    if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(' → ')}`);
    const { $ref: _ref, ...siblings } = schema;
    return { ...resolveSchema(schemas[name] as JsonSchema, schemas, [...seen, name]), ...resolveSiblings(siblings, schemas, seen) };
  }
  return resolveSiblings(schema, schemas, seen);
}

function resolveSiblings(schema: JsonSchema, schemas: Record<string, unknown>, seen: readonly string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveSchema(v as JsonSchema, schemas, seen)]));
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isRecord(value)) {
      out[key] = resolveSchema(value, schemas, seen);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((v) => resolveSchema(v as JsonSchema, schemas, seen));
    } else {
      out[key] = value;
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  if (isRecord(out.properties) && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
