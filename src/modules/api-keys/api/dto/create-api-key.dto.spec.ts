import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { AppError } from '../../../../core/index.js';
import { strictValidationPipe } from '../../../../platform/http/index.js';
import { CreateApiKeyDto } from './create-api-key.dto.js';

const meta: ArgumentMetadata = { type: 'body', metatype: CreateApiKeyDto };
const pipe = strictValidationPipe();

async function fieldsRefused(body: Record<string, unknown>): Promise<string[]> {
  try {
    await pipe.transform(body, meta);
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.code).toBe('validation_failed');
    return (err.details as Array<{ field: string }>).map((d) => d.field);
  }
}

const future = () => new Date(Date.now() + 86_400_000).toISOString();

describe('CreateApiKeyDto', () => {
  it('accepts a name, scopes and an optional future expiry, trimming the name', async () => {
    const dto = (await pipe.transform({ name: '  CRM  ', scopes: ['credits:read'], expires_at: future() }, meta)) as CreateApiKeyDto;
    expect(dto.name).toBe('CRM');
    expect(await fieldsRefused({ name: 'CRM', scopes: ['characters:read', 'characters:write'] })).toEqual([]);
    expect(await fieldsRefused({ name: 'CRM', scopes: ['credits:read'], expires_at: null })).toEqual([]);
  });

  it.each([
    [{ scopes: ['credits:read'] }, 'name'],
    [{ name: '   ', scopes: ['credits:read'] }, 'name'],
    [{ name: 'x'.repeat(81), scopes: ['credits:read'] }, 'name'],
    [{ name: 'CRM', scopes: [] }, 'scopes'],
    [{ name: 'CRM' }, 'scopes'],
    [{ name: 'CRM', scopes: ['everything'] }, 'scopes'],
    [{ name: 'CRM', scopes: ['credits:read', 'credits:read'] }, 'scopes'],
    [{ name: 'CRM', scopes: ['credits:read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ name: 'CRM', scopes: ['credits:read'], expires_at: 'next week' }, 'expires_at'],
    [{ name: 'CRM', scopes: ['credits:read'], admin: true }, 'admin'],
  ])('refuses %j on %s', async (body, field) => {
    expect(await fieldsRefused(body)).toContain(field);
  });
});
