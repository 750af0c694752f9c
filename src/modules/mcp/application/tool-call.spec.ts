import { describe, expect, it } from '@jest/globals';
import { invalidArgumentsResult, routeRequestOf, ToolArguments, toolResultOf } from './tool-call.js';
import type { Tool } from './tool-catalogue.js';

const publish: Tool = {
  name: 'publish',
  description: 'Publish.',
  method: 'POST',
  path: '/public/publish',
  inputSchema: {
    type: 'object',
    properties: { content_id: { type: 'string' }, platform: { type: 'string', enum: ['instagram', 'tiktok'] }, when: { type: 'string', format: 'date-time' } },
    required: ['content_id', 'platform'],
    additionalProperties: false,
  },
  placement: { path: [], query: [], body: ['content_id', 'platform', 'when'] },
};

const getContent: Tool = {
  name: 'get_content',
  description: 'Read.',
  method: 'GET',
  path: '/public/content/{id}',
  inputSchema: { type: 'object', properties: { id: { type: 'string' }, page: { type: 'integer' } }, required: ['id'], additionalProperties: false },
  placement: { path: ['id'], query: ['page'], body: [] },
};

describe('tool arguments', () => {
  const args = new ToolArguments([publish, getContent]);

  it('accepts arguments the schema accepts', () => {
    expect(args.problems(publish, { content_id: 'cnt_1', platform: 'tiktok', when: '2026-01-01T00:00:00Z' })).toEqual([]);
    expect(args.problems(getContent, { id: 'cnt_1' })).toEqual([]);
  });

  it('lists every problem as {field, message}: missing, unknown, wrong type, outside the enum, bad format', () => {
    const problems = args.problems(publish, { platform: 'myspace', extra: 1, when: 'yesterday' });
    expect(problems).toEqual(expect.arrayContaining([
      { field: 'content_id', message: 'content_id is required' },
      { field: 'extra', message: 'property extra should not exist' },
      { field: 'platform', message: expect.stringContaining('allowed values') },
      { field: 'when', message: expect.stringContaining('date-time') },
    ]));
    expect(problems).toHaveLength(4);
    expect(args.problems(getContent, { id: 7 })).toEqual([{ field: 'id', message: 'id must be string' }]);
  });

  it('treats absent arguments as an empty object', () => {
    expect(args.problems(getContent, undefined)).toEqual([{ field: 'id', message: 'id is required' }]);
  });
});

describe('the route request of a tool call', () => {
  it('encodes path parameters, puts query parameters in the query string and sends no body on GET', () => {
    expect(routeRequestOf(getContent, { id: 'cnt_1/../x', page: 2 })).toEqual({ method: 'GET', path: '/public/content/cnt_1%2F..%2Fx?page=2' });
    expect(routeRequestOf(getContent, { id: 'cnt_1' })).toEqual({ method: 'GET', path: '/public/content/cnt_1' });
  });

  it('sends the body arguments given, and only those', () => {
    expect(routeRequestOf(publish, { content_id: 'cnt_1', platform: 'tiktok' })).toEqual({
      method: 'POST', path: '/public/publish', body: { content_id: 'cnt_1', platform: 'tiktok' },
    });
  });
});

describe('the answer of a tool call', () => {
  it('answers a 2xx body as text and as structured content', () => {
    const body = { balance: 12, plan: 'agency' };
    expect(toolResultOf({ status: 200, body })).toEqual({ content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body });
    expect(toolResultOf({ status: 201, body: [1] })).toEqual({ content: [{ type: 'text', text: '[1]' }] });
  });

  it('answers a refusal as an error result carrying the route\'s error body unchanged', () => {
    const error = { statusCode: 403, code: 'insufficient_scope', message: 'This API key needs the credits:read scope.', details: { required: ['credits:read'] }, request_id: 'req_1.2' };
    const result = toolResultOf({ status: 403, body: error });
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] });
    expect(result.structuredContent).toBeUndefined();
  });

  it('answers invalid arguments as the API\'s validation_failed body', () => {
    const result = invalidArgumentsResult([{ field: 'id', message: 'id is required' }], 'req_9.3');
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text)).toEqual({
      statusCode: 400, code: 'validation_failed', message: 'The tool arguments are invalid.', details: [{ field: 'id', message: 'id is required' }], request_id: 'req_9.3',
    });
  });
});
