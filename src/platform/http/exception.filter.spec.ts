import { describe, expect, it } from '@jest/globals';
import { BadRequestException, NotFoundException, type ArgumentsHost } from '@nestjs/common';
import { AppError, CORE_ERRORS } from '../../core/index.js';
import type { ErrorStatusMap } from './error-status.js';
import { AppExceptionFilter } from './exception.filter.js';

/** The kernel's codes are all these cases throw; the application's map holds them too. */
const STATUSES = CORE_ERRORS as Partial<ErrorStatusMap> as ErrorStatusMap;

/** The headers of the last answer `run` gave. */
let lastHeaders: Record<string, string> = {};

function run(exception: unknown, statuses: ErrorStatusMap = STATUSES, request: Record<string, unknown> = {}) {
  const sent: { status?: number; body?: any } = {};
  const headers: Record<string, string> = {};
  lastHeaders = headers;
  const res = {
    headersSent: false,
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    getHeader(name: string) {
      return headers[name.toLowerCase()];
    },
    status(s: number) {
      sent.status = s;
      return this;
    },
    json(b: unknown) {
      sent.body = b;
    },
  };
  const req = { id: 'req_test', method: 'GET', path: '/x', ...request };
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }) } as unknown as ArgumentsHost;
  new AppExceptionFilter(statuses).catch(exception, host);
  // Every error answer, whatever raised it, is no-store (a body parser's answers come before the API's middleware).
  if (sent.status !== undefined) expect(headers['cache-control']).toBe('no-store');
  return sent;
}

describe('AppExceptionFilter', () => {
  it('answers an AppError with its code, status, details and the request id', () => {
    const out = run(new AppError('insufficient_credits', 'short', { required: 3, balance: 1 }));
    expect(out).toEqual({
      status: 402,
      body: { statusCode: 402, code: 'insufficient_credits', message: 'short', details: { required: 3, balance: 1 }, request_id: 'req_test' },
    });
  });

  it('answers the status the injected map gives the code', () => {
    const out = run(new AppError('insufficient_credits', 'short'), { ...STATUSES, insufficient_credits: 422 });
    expect(out.status).toBe(422);
    expect(out.body).toMatchObject({ statusCode: 422, code: 'insufficient_credits' });
    expect(run(new AppError('not_found', 'gone'), { ...STATUSES, not_found: 410 }).status).toBe(410);
  });

  it('maps an unknown route to not_found', () => {
    expect(run(new NotFoundException()).body.code).toBe('not_found');
  });

  it('names the path the client sent, API prefix included, query left out', () => {
    const out = run(new NotFoundException(), STATUSES, { originalUrl: '/api/v1/nothing/here?token=x', url: '/nothing/here?token=x', path: '/nothing/here' });
    expect(out.body.message).toBe('No route GET /api/v1/nothing/here.');
  });

  it('answers malformed JSON with a fixed sentence, not the parser text', () => {
    const parserError = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), { type: 'entity.parse.failed', status: 400 });
    // How Nest's Express adapter hands it over: a BadRequestException carrying the parser's text.
    const out = run(new BadRequestException(parserError.message, { cause: parserError }));
    expect(out.body).toMatchObject({ code: 'validation_failed', message: 'The request body is not valid JSON.' });
    expect(JSON.stringify(out.body)).not.toMatch(/position|Unexpected/);
  });

  it('maps body-parser size and parse errors', () => {
    expect(run(Object.assign(new Error('x'), { type: 'entity.too.large', status: 413 })).status).toBe(413);
    expect(run(Object.assign(new Error('x'), { type: 'entity.parse.failed', status: 400 })).body.code).toBe('validation_failed');
  });

  it('hides anything unexpected behind internal_error with no stack or SQL', () => {
    const out = run(new Error('duplicate key value violates unique constraint "users_email_lower_uq"'));
    expect(out.status).toBe(500);
    expect(out.body.code).toBe('internal_error');
    expect(JSON.stringify(out.body)).not.toMatch(/unique constraint|at /);
  });

  it('answers a database or Redis outage with 503 service_unavailable and Retry-After, not internal_error', () => {
    const pgDown = Object.assign(new Error('Connection terminated unexpectedly'), { port: 5432 });
    const statuses = { ...STATUSES, service_unavailable: 503 } as ErrorStatusMap;
    for (const err of [pgDown, new Error("Stream isn't writeable and enableOfflineQueue options is false"), { name: 'QueryFailedError', message: 'terminating connection due to administrator command', driverError: { code: '57P01' } }]) {
      const out = run(err, statuses);
      expect(out.status).toBe(503);
      expect(out.body).toMatchObject({ code: 'service_unavailable', message: expect.any(String) });
      expect(Number(lastHeaders['retry-after'])).toBeGreaterThan(0);
      expect(JSON.stringify(out.body)).not.toMatch(/ECONNREFUSED|5432|administrator/);
    }
  });

  it('gives an AppError service_unavailable (readiness) Retry-After too', () => {
    const out = run(new AppError('service_unavailable', 'A dependency is down.', { checks: { database: 'down' } }));
    expect(out.status).toBe(503);
    expect(Number(lastHeaders['retry-after'])).toBeGreaterThan(0);
  });

  it('sends Retry-After for a rate_limited refusal whose details say when, and keeps one already set', () => {
    run(new AppError('rate_limited', 'Too many.', { limit: 5, retry_after: 1234 }));
    expect(lastHeaders['retry-after']).toBe('1234');
    run(new AppError('rate_limited', 'Too many.', { limit: 5 }));
    expect(lastHeaders['retry-after']).toBeUndefined();
    run(new AppError('validation_failed', 'Bad.', { retry_after: 9 }));
    expect(lastHeaders['retry-after']).toBeUndefined();
  });
});
