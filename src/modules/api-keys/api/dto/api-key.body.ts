import { ApiProperty } from '@nestjs/swagger';
import { SCOPES } from '../../../../core/index.js';
import type { ApiKeyView, IssuedApiKey } from '../../application/api-key.view.js';

export class ApiKeyBody {
  @ApiProperty({ example: 'key_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'CRM integration' }) name!: string;
  @ApiProperty({ example: 'psk_Q2xhc3Np', description: 'The first characters of the key, to recognise it.' }) prefix!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SCOPES] } }) scopes!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Updated at most once a minute.' })
  last_used_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) expires_at!: string | null;
}

export class ApiKeyCreatedBody {
  @ApiProperty({ type: ApiKeyBody }) api_key!: ApiKeyBody;
  @ApiProperty({ example: 'psk_...', description: 'The secret. Shown only in this answer; store it now.' }) key!: string;
}

export class ApiKeyListBody {
  @ApiProperty({ type: [ApiKeyBody], description: 'Keys that still work, newest first.' }) api_keys!: ApiKeyBody[];
}

export function toApiKeyBody(view: ApiKeyView): ApiKeyBody {
  return {
    id: view.id,
    name: view.name,
    prefix: view.prefix,
    scopes: [...view.scopes],
    created_at: view.createdAt.toISOString(),
    last_used_at: view.lastUsedAt?.toISOString() ?? null,
    expires_at: view.expiresAt?.toISOString() ?? null,
  };
}

export function toApiKeyCreatedBody(issued: IssuedApiKey): ApiKeyCreatedBody {
  return { api_key: toApiKeyBody(issued.apiKey), key: issued.secret };
}
