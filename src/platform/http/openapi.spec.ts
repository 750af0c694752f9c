import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiResponse, type OpenAPIObject, type ResponseObject } from '@nestjs/swagger';
import { CORE_ERRORS } from '../../core/index.js';
import { Open, Product, PublicApi } from '../auth/access.decorator.js';
import { ACCESS_ERRORS } from '../auth/errors.js';
import { ApiErrors } from './api-docs.js';
import type { ErrorStatusMap } from './error-status.js';
import { accessErrorCodes, buildOpenApiDocument, rateLimitPolicyOf } from './openapi.js';

/** A map holding the kernel's and the guard's codes and two of a pretend context (cast: the real map holds every code). */
const STATUSES = { ...CORE_ERRORS, ...ACCESS_ERRORS, listing_exists: 409, invalid_credentials: 401 } as Partial<ErrorStatusMap> as ErrorStatusMap;

@Controller('things')
@Product()
@ApiErrors('not_found', 'invalid_credentials')
class ThingsController {
  @Post()
  @ApiErrors('listing_exists', 'not_found')
  @ApiErrors('invalid_state_transition', 'listing_exists', 'validation_failed', 'unauthorized')
  create() {
    return {};
  }

  @Get()
  list() {
    return [];
  }
}

/** Inherits the class's codes and its routes: the old metadata writer documented the parent's responses again on it. */
@Controller('mirror')
class MirrorController extends ThingsController {}

@Controller('open')
class OpenController {
  @Get('plain')
  @Open()
  plain() {
    return {};
  }

  @Post('sign-in')
  @Open({ authLimit: true })
  @ApiErrors('invalid_credentials')
  signIn() {
    return {};
  }

  @Get('public')
  @PublicApi('credits:read')
  credits() {
    return {};
  }

  @Get('admin')
  @Product({ roles: ['admin'], plans: ['agency'] })
  admin() {
    return {};
  }
}

@Controller('handwritten')
class HandwrittenController {
  @Get()
  @Open()
  @ApiResponse({ status: 404, description: 'Nothing here.' })
  get() {
    return {};
  }
}

@Module({ controllers: [ThingsController, MirrorController, OpenController] })
class ToyApp {}

@Module({ controllers: [HandwrittenController] })
class HandwrittenApp {}

type Responses = Record<string, ResponseObject>;
const responsesOf = (doc: OpenAPIObject, path: string, method: 'get' | 'post'): Responses => doc.paths[path][method]!.responses as Responses;
const descriptions = (r: Responses) => Object.fromEntries(Object.entries(r).filter(([s]) => Number(s) >= 400).map(([s, v]) => [s, v.description]));
const LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

describe('rate limits and refusals read from the access rule', () => {
  it('limits every authenticated route per workspace and an open route only with authLimit', () => {
    expect(rateLimitPolicyOf({ surface: 'product' })).toBe('plan');
    expect(rateLimitPolicyOf({ surface: 'public', scopes: ['credits:read'] })).toBe('plan');
    expect(rateLimitPolicyOf({ surface: 'open', authLimit: true })).toBe('auth');
    expect(rateLimitPolicyOf({ surface: 'open' })).toBeUndefined();
    expect(rateLimitPolicyOf(undefined)).toBeUndefined();
  });

  it("answers the guard's own refusals for each surface", () => {
    expect(accessErrorCodes({ surface: 'open' })).toEqual([]);
    expect(accessErrorCodes({ surface: 'open', authLimit: true })).toEqual(['rate_limited']);
    expect(accessErrorCodes({ surface: 'product' })).toEqual(['unauthorized', 'session_required', 'rate_limited']);
    expect(accessErrorCodes({ surface: 'product', roles: ['admin'], plans: ['pro'] })).toEqual(['unauthorized', 'session_required', 'rate_limited', 'forbidden', 'plan_required']);
    expect(accessErrorCodes({ surface: 'public', scopes: ['credits:read'] })).toEqual(['unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'rate_limited']);
  });
});

describe('buildOpenApiDocument', () => {
  let app: INestApplication;
  let doc: OpenAPIObject;

  beforeAll(async () => {
    app = await NestFactory.create(ToyApp, { logger: false });
    buildOpenApiDocument(app, STATUSES); // an earlier build (or another app) must change nothing
    doc = buildOpenApiDocument(app, STATUSES);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("lists the controller's codes, the method's and the access rule's under their status, each once, and the body limit's on a method with a body", () => {
    const expected = {
      '400': 'validation_failed',
      '401': 'invalid_credentials | unauthorized | session_required',
      '404': 'not_found',
      '409': 'invalid_state_transition | listing_exists',
      '429': 'rate_limited',
      '500': 'internal_error',
    };
    expect(descriptions(responsesOf(doc, '/things', 'post'))).toEqual({ ...expected, '413': 'payload_too_large' });
    expect(descriptions(responsesOf(doc, '/mirror', 'post'))).toEqual({ ...expected, '413': 'payload_too_large' });
    expect(descriptions(responsesOf(doc, '/things', 'get'))).toEqual({ ...expected, '409': undefined });
  });

  it('answers the same document however often it is built', async () => {
    const other = await NestFactory.create(ToyApp, { logger: false });
    try {
      expect(buildOpenApiDocument(other, STATUSES)).toEqual(doc);
    } finally {
      await other.close();
    }
  });

  it('documents the 429 with its headers, and the rate-limit headers of the answer, on every rate-limited route', () => {
    for (const [path, method] of [['/things', 'post'], ['/mirror', 'get'], ['/open/sign-in', 'post'], ['/open/public', 'get'], ['/open/admin', 'get']] as const) {
      const responses = responsesOf(doc, path, method);
      expect(Object.keys(responses['429'].headers!).sort()).toEqual([...LIMIT_HEADERS, 'Retry-After'].sort());
      const success = responses[method === 'post' ? '201' : '200'];
      expect(Object.keys(success.headers!).sort()).toEqual([...LIMIT_HEADERS].sort());
    }
    const plain = responsesOf(doc, '/open/plain', 'get');
    expect(plain['429']).toBeUndefined();
    expect(plain['200'].headers).toBeUndefined();
    expect(doc.components!.headers!['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(doc.components!.headers!.RateLimit).toMatchObject({ schema: { type: 'string' } });
  });

  it('documents the refusals of the public and restricted product surfaces', () => {
    expect(descriptions(responsesOf(doc, '/open/public', 'get'))).toMatchObject({ '401': 'unauthorized | api_key_required', '403': 'plan_required | insufficient_scope' });
    expect(descriptions(responsesOf(doc, '/open/admin', 'get'))).toMatchObject({ '401': 'unauthorized | session_required', '403': 'forbidden | plan_required' });
    expect(descriptions(responsesOf(doc, '/open/plain', 'get'))).toEqual({ '400': 'validation_failed', '500': 'internal_error' });
  });

  it("lists the map's codes in ErrorBody.code and points every error response at ErrorBody", () => {
    const body = doc.components!.schemas!.ErrorBody as { properties: Record<string, { enum?: string[]; type?: string }> };
    expect(body.properties.code).toMatchObject({ type: 'string' });
    expect(body.properties.code.enum!.sort()).toEqual(Object.keys(STATUSES).sort());
    expect(responsesOf(doc, '/things', 'post')['404'].content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } });
  });

  it('refuses an error response written by hand, which would shadow or merge with the declared codes', async () => {
    const bad = await NestFactory.create(HandwrittenApp, { logger: false });
    try {
      expect(() => buildOpenApiDocument(bad, STATUSES)).toThrow('error responses written by hand (declare the codes with @ApiErrors instead): 404 on GET /handwritten');
    } finally {
      await bad.close();
    }
  });
});
