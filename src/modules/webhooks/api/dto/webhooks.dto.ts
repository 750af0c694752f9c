import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import { WEBHOOK_EVENT_TYPES } from '../../../../core/index.js';
import { PageQueryDto, Present, Trim } from '../../../../platform/http/index.js';
import { DELIVERY_STATUSES, eventTypesProblem, MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, TEST_EVENT_TYPE, type DeliveryStatus } from '../../domain/webhook-rules.js';

function IsEventTypeList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEventTypeList',
      validator: {
        validate: (value) => eventTypesProblem(value) === null,
        defaultMessage: (args) => eventTypesProblem(args?.value) ?? 'event_types is not valid',
      },
    },
    options,
  );
}

const EVENT_TYPES_DOC: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, '*'] },
  minItems: 1,
  uniqueItems: true,
  example: ['job.completed', 'content.ready'],
  description: 'The event types to receive, or `["*"]` for all of them (and any added later).',
};

export class CreateEndpointDto {
  @ApiProperty({ maxLength: MAX_URL_LENGTH, example: 'https://hooks.example.com/persona', description: 'https only in production; no credentials; a public address.' })
  @Trim()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url!: string;

  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION_LENGTH, example: 'CRM sync' })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string;

  @ApiProperty(EVENT_TYPES_DOC)
  @IsEventTypeList()
  event_types!: string[];
}

export class UpdateEndpointDto {
  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH })
  @Present()
  @Trim()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION_LENGTH })
  @Present()
  @Trim()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string;

  @ApiPropertyOptional(EVENT_TYPES_DOC)
  @Present()
  @IsEventTypeList()
  event_types?: string[];

  @ApiPropertyOptional({ description: 'false turns the endpoint off (`disabled_reason` manual); true turns it back on and clears a disabled state and its failing streak.' })
  @Present()
  @IsBoolean()
  enabled?: boolean;
}

export class DeliveriesQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @ApiPropertyOptional({ enum: [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE] })
  @IsOptional()
  @IsIn([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE])
  event_type?: string;
}
