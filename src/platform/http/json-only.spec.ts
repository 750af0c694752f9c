import { describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../../core/index.js';
import { JsonBodyGuard } from './json-only.js';

function contextWith(contentType: string | undefined): ExecutionContext {
  const req = {
    is: (type: string) => {
      if (contentType === undefined) return null;
      const base = contentType.split(';')[0].trim().toLowerCase();
      return base === type ? type : false;
    },
  } as unknown as Request;
  return { switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext;
}

describe('JsonBodyGuard', () => {
  const guard = new JsonBodyGuard();

  it('lets JSON through', () => {
    expect(guard.canActivate(contextWith('application/json'))).toBe(true);
    expect(guard.canActivate(contextWith('application/json; charset=utf-8'))).toBe(true);
  });

  it('refuses what a cross-site form can send, and no body type at all, with 415', () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', undefined]) {
      let thrown: unknown;
      try {
        guard.canActivate(contextWith(type));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).code).toBe('unsupported_media_type');
    }
  });
});
