import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CORE_ERRORS, type ErrorCode } from '../../core/index.js';
import { ApiErrors, assertErrorCodesKnown, declaredErrorCodes, groupErrorCodes } from './api-docs.js';
import type { ErrorStatusMap } from './error-status.js';

/** A map holding the kernel's codes and two of a pretend context (cast: the real map holds every code). */
const STATUSES = { ...CORE_ERRORS, listing_exists: 409, email_taken: 409 } as Partial<ErrorStatusMap> as ErrorStatusMap;

@Controller('odd')
@ApiErrors('unauthorized')
class OddController {
  @Get()
  @ApiErrors('no_such_code' as ErrorCode)
  @ApiErrors('not_found')
  odd() {
    return {};
  }
}

@Module({ controllers: [OddController] })
class BadApp {}

describe('groupErrorCodes', () => {
  it('groups codes by status, always with validation_failed and internal_error, each code once', () => {
    expect(groupErrorCodes(['email_taken', 'not_found', 'invalid_state_transition', 'email_taken', 'internal_error'], STATUSES)).toEqual([
      { status: 400, codes: ['validation_failed'] },
      { status: 500, codes: ['internal_error'] },
      { status: 409, codes: ['email_taken', 'invalid_state_transition'] },
      { status: 404, codes: ['not_found'] },
    ]);
  });

  it('throws on a code the map lacks rather than documenting it under no status', () => {
    expect(() => groupErrorCodes(['session_required'], STATUSES)).toThrow('error code session_required is missing from the error status map');
  });
});

describe('declaredErrorCodes', () => {
  it("answers the controller's codes, then every ApiErrors of the method", () => {
    expect(declaredErrorCodes(OddController, OddController.prototype.odd)).toEqual(['unauthorized', 'not_found', 'no_such_code']);
  });
});

describe('assertErrorCodesKnown', () => {
  it('throws, naming the route, when a route names a code the map lacks', async () => {
    const bad = await NestFactory.create(BadApp, { logger: false });
    try {
      expect(() => assertErrorCodesKnown(bad, STATUSES)).toThrow('error codes missing from the error status map: no_such_code (OddController.odd)');
      expect(() => assertErrorCodesKnown(bad, { ...STATUSES, no_such_code: 400 } as ErrorStatusMap)).not.toThrow();
    } finally {
      await bad.close();
    }
  });
});
