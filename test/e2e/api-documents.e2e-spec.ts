import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
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
  label: string;
  responses: Record<string, ResponseObject>;
  security?: unknown[];
}

function operationsOf(doc: OpenAPIObject): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m) => ({
      label: `${m.toUpperCase()} ${path}`,
      responses: item[m]!.responses as Record<string, ResponseObject>,
      security: item[m]!.security,
    })),
  );
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
    expect(operations.map((o) => o.label).sort()).toEqual([...new Set(served)].sort());
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
});
