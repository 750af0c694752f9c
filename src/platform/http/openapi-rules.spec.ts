import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { OpenAPIObject } from '@nestjs/swagger';
import { IsInt, IsNumber, IsOptional } from 'class-validator';
import { aliasOperationId, closeInputSchemas, defaultOperationId, fixNullableTypes, integerPropertiesOf } from './openapi-rules.js';

class PageQuery {
  @IsOptional() @IsInt() page?: number;
  @IsOptional() @IsNumber() min_price?: number;
}

describe('the OpenAPI document rules', () => {
  it('names an operation <verb><Noun> from its controller and method, plural for a collection', () => {
    expect(defaultOperationId('CharactersController', 'list')).toBe('listCharacters');
    expect(defaultOperationId('CharactersController', 'create')).toBe('createCharacter');
    expect(defaultOperationId('CharactersController', 'remove')).toBe('deleteCharacter');
    expect(defaultOperationId('JobsController', 'index')).toBe('listJobs');
    expect(defaultOperationId('ContentController', 'generate')).toBe('generateContent');
    expect(defaultOperationId('ApiKeysController', 'revoke')).toBe('revokeApiKey');
    expect(defaultOperationId('AnalyticsController', 'sync')).toBe('syncAnalytics');
    expect(defaultOperationId('LoraController', 'addImages')).toBe('addImagesLora');
  });

  it('names the second path of a route after its first segment', () => {
    expect(aliasOperationId('listCharacters', '/api/v1/characters', 0)).toBe('listCharacters');
    expect(aliasOperationId('getLora', '/api/v1/influencers/{id}/lora', 1)).toBe('getLoraViaInfluencers');
  });

  it('reads whole numbers from class-validator (`@IsInt()`), not every number', () => {
    expect([...integerPropertiesOf(PageQuery)]).toEqual(['page']);
  });

  it('types a nullable property with string keywords as a string, and closes every schema a request body reaches', () => {
    const doc = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: { '/a': { post: { responses: {}, requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/In' } } } } } } },
      components: {
        schemas: {
          In: { type: 'object', properties: { name: { type: 'object', nullable: true, maxLength: 9 }, inner: { $ref: '#/components/schemas/Inner' } } },
          Inner: { type: 'object', properties: { x: { type: 'string' } } },
          Out: { type: 'object', properties: { y: { type: 'string' } } },
        },
      },
    } as unknown as OpenAPIObject;
    fixNullableTypes(doc);
    closeInputSchemas(doc);
    const s = doc.components!.schemas as Record<string, { additionalProperties?: boolean; properties: Record<string, { type?: string }> }>;
    expect(s.In.properties.name.type).toBe('string');
    expect([s.In.additionalProperties, s.Inner.additionalProperties, s.Out.additionalProperties]).toEqual([false, false, undefined]);
  });
});
