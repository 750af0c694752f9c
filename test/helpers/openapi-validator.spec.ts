import { describe, expect, it } from '@jest/globals';
import { OpenApiValidator, type AnswerToCheck } from './openapi-validator.js';

/** A document of two operations, in the shape the API serves (OpenAPI 3.0, paths under a server prefix). */
const DOC = {
  openapi: '3.0.0',
  servers: [{ url: '/api/v1' }],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          404: { description: 'not_found', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
        },
      },
      delete: { operationId: 'deleteThing', responses: { 204: { description: 'gone' } } },
    },
    '/things/special': {
      get: { operationId: 'getSpecialThing', responses: { 302: { description: 'elsewhere' } } },
    },
    '/things/{id}/image': {
      get: { operationId: 'getThingImage', responses: { 200: { description: 'bytes', content: { 'image/*': {} } } } },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'count', 'note', 'parent'],
        properties: {
          id: { type: 'string' },
          count: { type: 'integer' },
          note: { type: 'string', nullable: true },
          parent: { type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/Parent' }] },
        },
      },
      Parent: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      ErrorBody: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
    },
  },
};

const json = 'application/json; charset=utf-8';
const answer = (over: Partial<AnswerToCheck>): AnswerToCheck => ({
  method: 'GET', url: 'http://127.0.0.1:1/api/v1/things/t1', status: 200, contentType: json, body: {}, hasBody: true, ...over,
});
const thing = { id: 't1', count: 2, note: null, parent: null };

describe('OpenApiValidator', () => {
  const v = new OpenApiValidator(DOC);

  it('accepts an answer that matches its operation, nullable fields (plain and referenced) null or set', () => {
    expect(v.check(answer({ body: thing }))).toBeUndefined();
    expect(v.check(answer({ body: { ...thing, note: 'x', parent: { id: 'p' } } }))).toBeUndefined();
  });

  it('names the operation and the field when the body drifts from the schema', () => {
    expect(v.check(answer({ body: { ...thing, count: 1.5 } }))).toMatch(/^getThing \(GET \/things\/\{id\}\) answered 200 with a body that does not match[\s\S]*\/count must be integer/);
    expect(v.check(answer({ body: { ...thing, parent: {} } }))).toMatch(/\/parent/);
  });

  it('refuses a status the operation does not document, and a content type it does not list', () => {
    expect(v.check(answer({ status: 409, body: { code: 'conflict' } }))).toMatch(/getThing \(GET \/things\/\{id\}\) answered 409, a status its OpenAPI operation does not document \(documented: 200, 404\)/);
    expect(v.check(answer({ contentType: 'text/html', body: '<p>' }))).toMatch(/as text\/html, not one of the documented application\/json/);
  });

  it('checks a body-less answer and a non-JSON one by status and content type only', () => {
    expect(v.check(answer({ method: 'DELETE', status: 204, contentType: undefined, hasBody: false }))).toBeUndefined();
    expect(v.check(answer({ method: 'DELETE', status: 204, body: thing }))).toMatch(/declares none/);
    expect(v.check(answer({ url: 'http://h/api/v1/things/t1/image', contentType: 'image/png', body: Buffer.from('x') }))).toBeUndefined();
    expect(v.check(answer({ url: 'http://h/api/v1/things/t1/image', contentType: 'text/plain', body: 'x' }))).toMatch(/not one of the documented image\/\*/);
  });

  it('matches a static path before a templated one, and leaves requests outside the API or to no route alone', () => {
    expect(v.operationOf('GET', 'http://h/api/v1/things/special')?.id).toBe('getSpecialThing');
    expect(v.check(answer({ url: 'http://h/api/v1/things/special', status: 302, contentType: 'text/plain', body: 'Found' }))).toBeUndefined();
    expect(v.check(answer({ url: 'http://h/api/docs-json', status: 200 }))).toBeUndefined();
    expect(v.check(answer({ url: 'http://h/api/v1/nowhere', status: 404 }))).toBeUndefined();
  });
});
