import { describe, expect, it } from '@jest/globals';
import { buildToolCatalogue, resolveSchema, TOOL_ROUTES, type OpenApiSource, type ToolRoute } from './tool-catalogue.js';

/** A small document shaped as the application's (OpenAPI 3.0, paths under the prefix, bodies by $ref). */
const DOC: OpenApiSource = {
  paths: {
    '/api/v1/things': {
      get: {
        parameters: [
          { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
          { name: 'q', in: 'query', description: 'Name contains', schema: { type: 'string' } },
        ],
      },
      post: {
        parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } }],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThingDto' } } } },
      },
    },
    '/api/v1/things/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } },
  },
  components: {
    schemas: {
      CreateThingDto: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, example: 'Nova' },
          style: { $ref: '#/components/schemas/StyleDto' },
          tags: { type: 'array', items: { $ref: '#/components/schemas/TagDto' } },
          timezone: { type: 'string', nullable: true },
        },
        required: ['name'],
      },
      StyleDto: { type: 'object', properties: { tone: { type: 'string', enum: ['calm', 'bold'] } } },
      TagDto: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
      LoopDto: { type: 'object', properties: { next: { $ref: '#/components/schemas/LoopDto' } } },
    },
  },
};

const ROUTES: ToolRoute[] = [
  { name: 'list_things', method: 'GET', path: '/things', description: 'List.' },
  { name: 'create_thing', method: 'POST', path: '/things', description: 'Create.' },
  { name: 'get_thing', method: 'GET', path: '/things/{id}', description: 'Read.' },
];

describe('the MCP tool catalogue', () => {
  it('names each public operation once, in snake_case, on a public route', () => {
    const names = TOOL_ROUTES.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of TOOL_ROUTES) {
      expect(t.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(t.path).toMatch(/^\/public\//);
    }
    expect(names).toEqual(['list_characters', 'create_character', 'generate_content', 'get_content', 'get_job', 'publish', 'get_credits']);
  });

  it('builds each input schema from the path and query parameters and the body, closed, with no $ref left', () => {
    const tools = buildToolCatalogue(DOC, '/api/v1', ROUTES);
    const [list, create, get] = tools;
    expect(list.inputSchema).toEqual({
      type: 'object',
      properties: { page: { type: 'integer', minimum: 1 }, q: { type: 'string', description: 'Name contains' } },
      additionalProperties: false,
    });
    expect(list.placement).toEqual({ path: [], query: ['page', 'q'], body: [] });
    expect(get.inputSchema).toEqual({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false });
    expect(get.placement).toEqual({ path: ['id'], query: [], body: [] });
    expect(create.placement).toEqual({ path: [], query: [], body: ['name', 'style', 'tags', 'timezone'] });
    expect(create.inputSchema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, example: 'Nova' },
        style: { type: 'object', properties: { tone: { type: 'string', enum: ['calm', 'bold'] } }, additionalProperties: false },
        tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'], additionalProperties: false } },
        timezone: { type: ['string', 'null'] },
      },
      required: ['name'],
      additionalProperties: false,
    });
    expect(JSON.stringify(tools)).not.toContain('$ref');
    expect(JSON.stringify(tools)).not.toContain('nullable');
  });

  it('finds the routes when the document keeps the API prefix in its servers instead of its paths', () => {
    const bare: OpenApiSource = { ...DOC, paths: Object.fromEntries(Object.entries(DOC.paths).map(([p, item]) => [p.replace('/api/v1', ''), item])) };
    expect(buildToolCatalogue(bare, '/api/v1', ROUTES)).toEqual(buildToolCatalogue(DOC, '/api/v1', ROUTES));
  });

  it('refuses to build when a route is missing from the document, a name is listed twice or a $ref cannot resolve', () => {
    expect(() => buildToolCatalogue(DOC, '/api/v1', [{ name: 'gone', method: 'POST', path: '/things/{id}', description: '' }])).toThrow('not in the OpenAPI document');
    expect(() => buildToolCatalogue(DOC, '/api/v1', [ROUTES[0], { ...ROUTES[1], name: 'list_things' }])).toThrow('listed twice');
    expect(() => resolveSchema({ $ref: '#/components/schemas/Missing' }, {})).toThrow('unresolvable $ref');
    expect(() => resolveSchema({ $ref: '#/components/schemas/LoopDto' }, DOC.components!.schemas as Record<string, unknown>)).toThrow('recursive schema');
  });

  it('keeps a free-form object open and admits null in a nullable enum', () => {
    expect(resolveSchema({ type: 'object' }, {})).toEqual({ type: 'object' });
    expect(resolveSchema({ type: 'string', enum: ['a'], nullable: true }, {})).toEqual({ type: ['string', 'null'], enum: ['a', null] });
  });
});
