import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, Length, Max, Min,
} from 'class-validator';
import { Present, Trim } from '../../../../platform/http/index.js';
import { ENDPOINT_KINDS } from '../../application/ports/gpu-backend.js';
import { ENDPOINT_STATUSES, MAX_CONCURRENCY_LIMIT } from '../../domain/endpoint.js';
import { CAPABILITIES, FALLBACK_REASONS } from '../../domain/routing-rules.js';
import { CIRCUIT_STATES } from '../../domain/circuit.js';

const URL_MAX = 2048;
const KEY_MAX = 1024;

export class SetRoutingDto {
  @ApiProperty() @IsBoolean() enabled!: boolean;

  @ApiProperty({ minimum: 0, maximum: 100, description: 'Share of image jobs tried self-hosted (up to two decimals).' })
  @IsNumber({ maxDecimalPlaces: 2, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  routing_percentage!: number;
}

export class CreateEndpointDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'gpu-rack-1' })
  @Trim() @IsString() @Length(1, 100)
  name!: string;

  @ApiProperty({ maxLength: URL_MAX, example: 'http://10.0.4.12:7860', description: 'http(s); link-local and metadata addresses are refused.' })
  @Trim() @IsString() @Length(1, URL_MAX)
  url!: string;

  @ApiProperty({ enum: ENDPOINT_KINDS })
  @IsIn(ENDPOINT_KINDS)
  kind!: (typeof ENDPOINT_KINDS)[number];

  @ApiPropertyOptional({ enum: ENDPOINT_STATUSES, default: 'active' })
  @Present() @IsIn(ENDPOINT_STATUSES)
  status?: (typeof ENDPOINT_STATUSES)[number];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CONCURRENCY_LIMIT, default: 1, description: 'Requests it may hold at once, counted across every process.' })
  @Present() @IsInt() @Min(1) @Max(MAX_CONCURRENCY_LIMIT)
  max_concurrency?: number;

  @ApiPropertyOptional({ enum: CAPABILITIES, isArray: true, default: [...CAPABILITIES] })
  @Present() @IsArray() @ArrayNotEmpty() @ArrayUnique() @ArrayMaxSize(CAPABILITIES.length) @IsIn(CAPABILITIES, { each: true })
  capabilities?: Array<(typeof CAPABILITIES)[number]>;

  @ApiPropertyOptional({
    maxLength: KEY_MAX,
    nullable: true,
    description: 'A1111/Forge: `user:password` for HTTP Basic auth; ComfyUI: the bearer token of the proxy in front. Stored encrypted, never returned.',
  })
  @IsOptional() @IsString() @Length(1, KEY_MAX)
  api_key?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'ComfyUI only: an API-format workflow replacing the built-in one (see the README for its placeholders).' })
  @IsOptional() @IsObject()
  workflow?: Record<string, unknown> | null;
}

export class UpdateEndpointDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Present() @Trim() @IsString() @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ maxLength: URL_MAX })
  @Present() @Trim() @IsString() @Length(1, URL_MAX)
  url?: string;

  @ApiPropertyOptional({ enum: ENDPOINT_KINDS })
  @Present() @IsIn(ENDPOINT_KINDS)
  kind?: (typeof ENDPOINT_KINDS)[number];

  @ApiPropertyOptional({ enum: ENDPOINT_STATUSES })
  @Present() @IsIn(ENDPOINT_STATUSES)
  status?: (typeof ENDPOINT_STATUSES)[number];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CONCURRENCY_LIMIT })
  @Present() @IsInt() @Min(1) @Max(MAX_CONCURRENCY_LIMIT)
  max_concurrency?: number;

  @ApiPropertyOptional({ enum: CAPABILITIES, isArray: true })
  @Present() @IsArray() @ArrayNotEmpty() @ArrayUnique() @ArrayMaxSize(CAPABILITIES.length) @IsIn(CAPABILITIES, { each: true })
  capabilities?: Array<(typeof CAPABILITIES)[number]>;

  @ApiPropertyOptional({ maxLength: KEY_MAX, nullable: true, description: 'A new key; null removes it.' })
  @IsOptional() @IsString() @Length(1, KEY_MAX)
  api_key?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'ComfyUI only; null returns to the built-in workflow.' })
  @IsOptional() @IsObject()
  workflow?: Record<string, unknown> | null;
}

// Documentation shapes for the OpenAPI document.

export class RoutingBody {
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) routing_percentage!: number;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class RoutingEnvelope {
  @ApiProperty({ type: RoutingBody }) routing!: RoutingBody;
}

export class EndpointBody {
  @ApiProperty({ example: 'ep_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: ENDPOINT_KINDS }) kind!: string;
  @ApiProperty({ enum: ENDPOINT_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_CONCURRENCY_LIMIT }) max_concurrency!: number;
  @ApiProperty({ enum: CAPABILITIES, isArray: true }) capabilities!: string[];
  @ApiProperty({ description: 'Whether a key is stored; the key itself is never returned.' }) api_key_set!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) workflow!: Record<string, unknown> | null;
  @ApiProperty({ enum: ['healthy', 'unhealthy', 'unknown'], description: 'Probe and circuit together: unhealthy while the circuit is open or the probe failed, healthy only with a passing probe and a closed circuit.' }) health!: string;
  @ApiProperty({ enum: ['healthy', 'degraded', 'unavailable'], description: 'Whether it takes jobs: unavailable (disabled, circuit open, probe failed), degraded (half open, or not probed within the TTL), healthy.' }) availability!: string;
  @ApiProperty({ enum: ['healthy', 'unhealthy', 'unknown'], description: 'The last probe within the health TTL as measured; unknown when there is none.' }) probe_health!: string;
  @ApiProperty({ type: String, nullable: true }) last_error!: string | null;
  @ApiProperty({ type: 'integer', description: 'Requests held right now, across every process.' }) current_load!: number;
  @ApiProperty({ type: Number, nullable: true }) avg_latency_ms!: number | null;
  @ApiProperty({ type: 'integer' }) consecutive_failures!: number;
  @ApiProperty({ enum: CIRCUIT_STATES }) circuit!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) circuit_opened_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) circuit_retry_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_checked_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class EndpointEnvelope {
  @ApiProperty({ type: EndpointBody }) endpoint!: EndpointBody;
}

class StatsBody {
  @ApiProperty({ format: 'date-time', description: 'When counting began (the first routed job, or the first read).' }) since!: string;
  @ApiProperty({ type: 'integer', description: 'Image jobs drawn self-hosted.' }) selfhosted!: number;
  @ApiProperty({ type: 'integer', description: 'Image jobs drawn on the cloud path, fallbacks included.' }) cloud!: number;
  @ApiProperty({ type: 'integer', description: 'Jobs chosen for self-hosted that ended on the cloud path.' }) fallbacks!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: `Fallbacks by reason: ${FALLBACK_REASONS.join(', ')}.` }) by_reason!: Record<string, number>;
}

export class RoutingOverviewBody extends RoutingEnvelope {
  @ApiProperty({ type: [EndpointBody] }) endpoints!: EndpointBody[];
  @ApiProperty({ type: StatsBody }) stats!: StatsBody;
}
