import { describe, expect, it } from '@jest/globals';
import { NotFoundException, type ArgumentsHost } from '@nestjs/common';
import { AppError } from '../../core/index.js';
import { AppExceptionFilter } from './exception.filter.js';

function run(exception: unknown) {
  const sent: { status?: number; body?: any } = {};
  const res = {
    headersSent: false,
    status(s: number) {
      sent.status = s;
      return this;
    },
    json(b: unknown) {
      sent.body = b;
    },
  };
  const req = { id: 'req_test', method: 'GET', path: '/x' };
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }) } as unknown as ArgumentsHost;
  new AppExceptionFilter().catch(exception, host);
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

  it('maps an unknown route to not_found', () => {
    expect(run(new NotFoundException()).body.code).toBe('not_found');
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
});
