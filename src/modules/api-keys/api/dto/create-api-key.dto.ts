import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Length, ValidateBy, type ValidationOptions } from 'class-validator';
import { SCOPES, type Scope } from '../../../../core/index.js';
import { Trim } from '../../../../platform/http/index.js';
import { expiryProblem, scopeListProblem } from '../../domain/api-key-rules.js';

function IsScopeList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isScopeList',
      validator: {
        validate: (value) => scopeListProblem(value) === null,
        defaultMessage: (args) => scopeListProblem(args?.value) ?? 'scopes are not valid',
      },
    },
    options,
  );
}

function IsFutureTimestamp(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isFutureTimestamp',
      validator: {
        validate: (value) => expiryProblem(value, new Date()) === null,
        defaultMessage: (args) => expiryProblem(args?.value, new Date()) ?? 'expires_at is not valid',
      },
    },
    options,
  );
}

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 80, example: 'CRM integration' })
  @Trim()
  @IsString()
  @Length(1, 80)
  name!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...SCOPES] },
    minItems: 1,
    uniqueItems: true,
    example: ['characters:read', 'credits:read'],
    description: 'What the key may do; each public route needs one scope.',
  })
  @IsScopeList()
  scopes!: Scope[];

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2030-01-01T00:00:00Z',
    description: 'When the key stops working; omitted or null means never. Must be in the future.',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expires_at must be an ISO 8601 timestamp' })
  @IsFutureTimestamp()
  expires_at?: string | null;
}
