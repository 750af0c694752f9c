import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPIObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import type { ApiDocuments } from '../../src/api-documents.js';
import type { ApiDocumentsProbe } from '../support/api-documents-probe.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/**
 * The documents of the real application (its modules in Nest's preview mode: no database, Redis or
 * secrets), checked against what the application serves and against the contract's rules. Built by
 * the compiled probe in a Node process of its own (see test/support/api-documents-probe.ts).
 */

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;
const LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/** The open routes that count per client address (`@Open({authLimit: true})`). */
const SIGN_IN_ROUTES = ['POST /api/v1/auth/register', 'POST /api/v1/auth/login', 'POST /api/v1/auth/refresh', 'POST /api/v1/auth/verify-email'];

interface Operation {
  /** `GET /api/v1/characters/{id}`: the method and the full path (the server's prefix and the path). */
  label: string;
  operationId?: string;
  tags?: string[];
  responses: Record<string, ResponseObject>;
  security?: unknown[];
  parameters: Array<{ name: string; in: string; schema?: SchemaObject }>;
  requestBody?: { content?: Record<string, { schema?: SchemaObject | ReferenceObject }> };
}

function operationsOf(doc: OpenAPIObject): Operation[] {
  const prefix = doc.servers?.[0]?.url ?? '';
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m) => ({
      label: `${m.toUpperCase()} ${prefix}${path}`,
      operationId: item[m]!.operationId,
      tags: item[m]!.tags,
      responses: item[m]!.responses as Record<string, ResponseObject>,
      security: item[m]!.security,
      parameters: (item[m]!.parameters ?? []) as Operation['parameters'],
      requestBody: item[m]!.requestBody as Operation['requestBody'],
    })),
  );
}

type Schemas = Record<string, SchemaObject>;

/** Every property schema of the document's components, labelled `Schema.property`. */
function propertiesOf(schemas: Schemas): Array<[string, SchemaObject]> {
  return Object.entries(schemas).flatMap(([name, s]) => Object.entries(s.properties ?? {}).map(([p, v]) => [`${name}.${p}`, v as SchemaObject] as [string, SchemaObject]));
}

/** Every `$ref` in a document that does not point at something in it. */
function danglingRefs(doc: object): string[] {
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]);
  const resolves = (pointer: string) =>
    pointer.split('/').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc) !== undefined;
  return [...new Set(refs)].filter((r) => !resolves(r));
}

describe('the API documents of the application', () => {
  const dir = mkdtempSync(join(tmpdir(), 'api-docs-'));
  let probe: ApiDocumentsProbe;
  let docs: ApiDocuments;
  let operations: Operation[];
  let ERROR_STATUS: Record<string, number>;

  beforeAll(async () => {
    const out = join(dir, 'probe.json');
    await run(process.execPath, [join(ROOT, 'dist/test/support/api-documents-probe.js'), out], { cwd: ROOT });
    probe = JSON.parse(readFileSync(out, 'utf8')) as ApiDocumentsProbe;
    docs = probe.docs;
    ERROR_STATUS = probe.errorStatus;
    operations = operationsOf(docs.openapi);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('documents every route the application serves, with its method and path, and nothing else', () => {
    const { served } = probe;
    expect(served.length).toBeGreaterThan(50);
    // Streamable HTTP asks a stateless MCP server to answer these with 405: served, not operations.
    const refusedByProtocol = ['GET /api/v1/mcp', 'DELETE /api/v1/mcp'];
    expect(operations.map((o) => o.label).sort()).toEqual([...new Set(served)].filter((r) => !refusedByProtocol.includes(r)).sort());
  });

  it('lists each error code once per operation, under its own status, in one response per status', () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const seen = new Set<string>();
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
        const codes = response.description.split(' | ');
        for (const code of codes) {
          if (seen.has(code)) wrong.push(`${op.label} ${status}: ${code} repeated`);
          seen.add(code);
          if (String(ERROR_STATUS[code]) !== status) wrong.push(`${op.label} ${status}: ${JSON.stringify(code)} is not a code of that status`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('documents the 429 with its headers, and the rate-limit headers of every success, on every rate-limited route', () => {
    const limited = operations.filter((o) => (o.security?.length ?? 0) > 0 || SIGN_IN_ROUTES.includes(o.label));
    expect(limited.length).toBeGreaterThan(50);
    expect(limited.map((o) => o.label)).toEqual(expect.arrayContaining(SIGN_IN_ROUTES));
    const wrong: string[] = [];
    for (const op of limited) {
      const refused = op.responses['429'];
      if (refused?.description !== 'rate_limited') wrong.push(`${op.label}: no 429 rate_limited`);
      else if (Object.keys(refused.headers ?? {}).sort().join() !== [...LIMIT_HEADERS, 'Retry-After'].sort().join()) wrong.push(`${op.label}: 429 headers`);
      const successes = Object.entries(op.responses).filter(([s]) => Number(s) < 400);
      if (successes.length === 0) wrong.push(`${op.label}: no success response`);
      for (const [status, r] of successes) {
        if (Object.keys(r.headers ?? {}).sort().join() !== [...LIMIT_HEADERS].sort().join()) wrong.push(`${op.label} ${status}: rate-limit headers`);
      }
    }
    expect(wrong).toEqual([]);
    expect(operations.find((o) => o.label === 'GET /api/v1/health')!.responses['429']).toBeUndefined();
  });

  it('leaves no reference dangling in either document', () => {
    expect(danglingRefs(docs.openapi)).toEqual([]);
    expect(danglingRefs(docs.asyncapi)).toEqual([]);
  });

  it('documents the inputs that disagreed: the voice clone name, start_date as a day, timezone on create, slug on create', () => {
    const schemas = (docs.openapi as { components: { schemas: Record<string, { required?: string[]; properties: Record<string, { description?: string }> }> } }).components.schemas;
    expect(schemas.CloneVoiceDto.required).toContain('name');
    expect(schemas.CloneVoiceDto.properties.name.description).toMatch(/^Required/);
    expect(schemas.GenerateScheduleDto.properties.start_date.description).toMatch(/YYYY-MM-DD/);
    expect(Object.keys(schemas.CreateCharacterDto.properties)).toContain('timezone');
    expect(Object.keys(schemas.CreateOrganisationDto.properties)).toContain('slug');
  });

  it('describes every event the code can publish, with its payload schema, and the socket protocol', () => {
    const { asyncapi } = docs;
    expect(asyncapi.asyncapi).toBe('3.0.0');
    expect(asyncapi.channels.socket.address).toBe('/api/v1/ws');
    // The scopes table and the catalogue name the same events (both are keyed by the catalogue's type).
    expect(Object.keys(probe.eventReadScopes).sort()).toEqual([...probe.eventTypes].sort());
    const messages = Object.values(asyncapi.components.messages);
    for (const type of probe.eventTypes) {
      const described = messages.find((m) => m.name === type);
      const { field, schema } = probe.events[type];
      expect(described?.payload).toMatchObject({ properties: { type: { const: type }, [field]: { $ref: `#/components/schemas/${schema}` } }, required: ['type', field] });
      expect(asyncapi.components.schemas[schema]).toMatchObject({ type: 'object' });
    }
    expect(messages.map((m) => m.name)).toEqual(expect.arrayContaining(['auth', 'auth.ok', 'auth.error', 'ping', 'pong']));
    expect(asyncapi.channels.socket['x-close-codes'].map((c) => c.code)).toEqual(expect.arrayContaining([4401, 4403]));
  });

  it('writes both documents to files, as `npm run docs:export` does', async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'dist/src/cli/docs-export.js'), join(dir, 'nested')], { cwd: ROOT });
    const files = stdout.trim().split('\n').map((line) => line.replace(/^wrote /, ''));
    expect(files.map((f) => f.slice(dir.length))).toEqual(['/nested/openapi.json', '/nested/asyncapi.json']);
    expect(JSON.parse(readFileSync(files[0], 'utf8'))).toEqual(docs.openapi);
    expect(JSON.parse(readFileSync(files[1], 'utf8'))).toEqual(docs.asyncapi);
  });
  it('names every operation with a unique camelCase operationId (no `[0]`/`[1]` of a route served at two paths)', () => {
    const ids = operations.map((o) => o.operationId ?? `(none on ${o.label})`);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]+$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const byLabel = Object.fromEntries(operations.map((o) => [o.label, o.operationId]));
    expect(byLabel).toMatchObject({
      'GET /api/v1/characters': 'listCharacters',
      'POST /api/v1/characters': 'createCharacter',
      'GET /api/v1/characters/{id}': 'getCharacter',
      'POST /api/v1/content/generate': 'generateContent',
      'GET /api/v1/influencers': 'listCharactersViaInfluencers',
    });
  });

  it('tags every operation with a tag the document declares and describes, and documents a success for each', () => {
    const declared = new Map((docs.openapi.tags ?? []).map((t) => [t.name, t.description]));
    const wrong: string[] = [];
    for (const op of operations) {
      if (!op.tags?.length) wrong.push(`${op.label}: no tag`);
      for (const t of op.tags ?? []) if (!declared.get(t)) wrong.push(`${op.label}: tag ${t} not declared with a description`);
      if (!Object.keys(op.responses).some((s) => /^[23]\d\d$/.test(s))) wrong.push(`${op.label}: no 2xx (or redirect) response`);
      for (const [status, r] of Object.entries(op.responses)) {
        if (/^2\d\d$/.test(status) && status !== '204' && !r.content) wrong.push(`${op.label} ${status}: a success without its content`);
      }
    }
    expect(wrong).toEqual([]);
    expect(operations.filter((o) => Object.keys(o.responses).some((s) => /^2/.test(s))).length).toBeGreaterThan(operations.length - 10);
  });

  it('asks no credentials of the open routes (`security: []`) and the right scheme of the others, under a server that prefixes every path', () => {
    expect(docs.openapi.servers).toEqual([expect.objectContaining({ url: '/api/v1' })]);
    expect(Object.keys(docs.openapi.paths).filter((p) => p.startsWith('/api/'))).toEqual([]);
    const security = Object.fromEntries(operations.map((o) => [o.label, o.security]));
    for (const open of ['GET /api/v1/health', 'POST /api/v1/auth/login', 'POST /api/v1/auth/register', 'GET /api/v1/media/{key}', 'GET /api/v1/branding',
      'POST /api/v1/webhooks/stripe', 'GET /api/v1/integrations/{platform}/callback']) {
      expect([open, security[open]]).toEqual([open, []]);
    }
    expect(security['GET /api/v1/characters']).toEqual([{ bearer: [] }]);
    expect(security['GET /api/v1/public/characters']).toEqual([{ api_key: [] }]);
    expect(operations.filter((o) => o.security === undefined).map((o) => o.label)).toEqual([]);
  });

  it('types the validation details as a list of {field, message}, nullable strings as strings, and no free-form object where a shape is known', () => {
    const schemas = docs.openapi.components!.schemas as Schemas;
    const details = schemas.ErrorBody.properties!.details as SchemaObject;
    expect(details.anyOf).toContainEqual(expect.objectContaining({
      type: 'array',
      items: expect.objectContaining({ required: ['field', 'message'], properties: { field: expect.objectContaining({ type: 'string' }), message: expect.objectContaining({ type: 'string' }) } }),
    }));
    expect(schemas.UpdateBrandingDto.properties!.display_name).toMatchObject({ type: 'string', nullable: true });
    // A property typed object says what it holds (its properties, or what its values are), or is a nullable reference.
    const shapeless = propertiesOf(schemas).filter(([, p]) => p.type === 'object' && !p.properties && p.additionalProperties === undefined && !p.allOf);
    expect(shapeless.map(([label]) => label)).toEqual([]);
  });

  it('types whole numbers integer: page, page_size, total, counts, in bodies and in queries', () => {
    const schemas = docs.openapi.components!.schemas as Schemas;
    const pageFields = propertiesOf(schemas).filter(([label]) => /\.(page|page_size|total)$/.test(label));
    expect(pageFields.length).toBeGreaterThan(10);
    expect(pageFields.filter(([, p]) => p.type !== 'integer').map(([label]) => label)).toEqual([]);
    expect(schemas.TrainLoraDto.properties!.training_steps).toMatchObject({ type: 'integer' });
    expect(schemas.CreateVariantsDto.properties!.count).toMatchObject({ type: 'integer' });
    const queries = operations.flatMap((o) => o.parameters.filter((p) => ['page', 'page_size', 'limit'].includes(p.name)).map((p) => [`${o.label} ${p.name}`, p.schema?.type]));
    expect(queries.length).toBeGreaterThan(20);
    expect(queries.filter(([, type]) => type !== 'integer')).toEqual([]);
  });

  it('refuses unknown properties in every request body schema, as the API does (additionalProperties: false)', () => {
    const schemas = docs.openapi.components!.schemas as Schemas;
    const open: string[] = [];
    const seen = new Set<string>();
    const visit = (s: SchemaObject | ReferenceObject | undefined, where: string): void => {
      if (!s) return;
      if ('$ref' in s) {
        const name = s.$ref.split('/').pop()!;
        if (seen.has(name)) return;
        seen.add(name);
        if (schemas[name].additionalProperties !== false) open.push(`${name} (${where})`);
        visit(schemas[name], where);
        return;
      }
      for (const p of Object.values(s.properties ?? {})) visit(p, where);
      if (s.items) visit(s.items, where);
      for (const x of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) visit(x, where);
    };
    let bodies = 0;
    for (const op of operations) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        bodies += 1;
        const s = media.schema;
        if (s && !('$ref' in s) && (s.type === 'object' || s.properties) && s.additionalProperties !== false) open.push(`${op.label} ${type}`);
        visit(s, op.label);
      }
    }
    expect(bodies).toBeGreaterThan(40);
    expect(open).toEqual([]);
  });
});
