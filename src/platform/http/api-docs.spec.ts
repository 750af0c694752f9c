import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { CORE_ERRORS, type ErrorCode } from '../../core/index.js';
import { ApiErrors, documentErrorResponses, groupErrorCodes } from './api-docs.js';
import type { ErrorStatusMap } from './error-status.js';

/** A map holding the kernel's codes and two of a pretend context (cast: the real map holds every code). */
const STATUSES = { ...CORE_ERRORS, listing_exists: 409, email_taken: 409 } as Partial<ErrorStatusMap> as ErrorStatusMap;

@Controller('things')
@ApiErrors('unauthorized', 'rate_limited')
class ThingsController {
  @Post()
  @ApiErrors('listing_exists', 'not_found')
  @ApiErrors('invalid_state_transition', 'listing_exists', 'validation_failed')
  create() {
    return {};
  }

  @Get()
  list() {
    return [];
  }
}

@Controller('odd')
class OddController {
  @Get()
  @ApiErrors('no_such_code' as ErrorCode)
  odd() {
    return {};
  }
}

@Module({ controllers: [ThingsController] })
class GoodApp {}

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
});

describe('documentErrorResponses', () => {
  let app: INestApplication;
  let doc: OpenAPIObject;

  beforeAll(async () => {
    app = await NestFactory.create(GoodApp, { logger: false });
    documentErrorResponses(app, STATUSES);
    documentErrorResponses(app, STATUSES); // a second run documents nothing twice
    doc = SwaggerModule.createDocument(app, new DocumentBuilder().build());
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers one response per status, listing the codes of every ApiErrors on the route once each', () => {
    const responses = doc.paths['/things'].post!.responses;
    expect(responses['400']).toEqual({ description: 'validation_failed', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });
    expect(responses['404']).toMatchObject({ description: 'not_found' });
    expect(responses['409']).toMatchObject({ description: 'invalid_state_transition | listing_exists' });
    expect(responses['500']).toMatchObject({ description: 'internal_error' });
  });

  it('documents codes declared on the controller for its routes', () => {
    const responses = doc.paths['/things'].get!.responses;
    expect(responses['401']).toMatchObject({ description: 'unauthorized' });
    expect(responses['429']).toMatchObject({ description: 'rate_limited' });
    expect(responses['400']).toMatchObject({ description: 'validation_failed' });
  });

  it("lists the map's codes in ErrorBody.code", () => {
    const body = doc.components!.schemas!.ErrorBody as { properties: Record<string, { enum?: string[]; type?: string }> };
    expect(body.properties.code).toMatchObject({ type: 'string' });
    expect(body.properties.code.enum!.sort()).toEqual(Object.keys(STATUSES).sort());
  });

  it('throws, naming the route, when a route names a code the map lacks', async () => {
    const bad = await NestFactory.create(BadApp, { logger: false });
    try {
      expect(() => documentErrorResponses(bad, STATUSES)).toThrow('error codes missing from the error status map: no_such_code (OddController.odd)');
    } finally {
      await bad.close();
    }
  });
});
