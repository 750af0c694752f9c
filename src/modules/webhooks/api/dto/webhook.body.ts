import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES } from '../../../../core/index.js';
import type { AttemptView, DeliveryView, EndpointView, EndpointWithSecret } from '../../application/webhook.views.js';
import { DELIVERY_STATUSES, TEST_EVENT_TYPE } from '../../domain/webhook-rules.js';

export class WebhookEndpointBody {
  @ApiProperty({ example: 'whe_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'https://hooks.example.com/persona' }) url!: string;
  @ApiProperty({ example: 'CRM sync' }) description!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, '*'] } }) event_types!: string[];
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: 'string', enum: ['gone', 'failing', 'manual'], nullable: true, description: '`gone`: the receiver answered 410; `failing`: every attempt failed for 3 days; `manual`: turned off.' })
  disabled_reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Until when the previous secret still signs beside the new one; null when no rotation overlaps.' })
  secret_rotation_ends_at!: string | null;
}

export class WebhookEndpointListBody {
  @ApiProperty({ type: [WebhookEndpointBody], description: 'Newest first (at most 10).' }) endpoints!: WebhookEndpointBody[];
}

export class WebhookEndpointCreatedBody {
  @ApiProperty({ type: WebhookEndpointBody }) endpoint!: WebhookEndpointBody;
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'The signing secret. Shown only in this answer; store it now.' }) secret!: string;
}

export class WebhookAttemptBody {
  @ApiProperty({ type: 'integer' }) attempt!: number;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ type: 'integer' }) duration_ms!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null when no answer came (timeout, refused address, network error).' }) status_code!: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The first KiB of the answer.' }) response_excerpt!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) error!: string | null;
}

export class WebhookDeliveryBody {
  @ApiProperty({ example: 'whd_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() endpoint_id!: string;
  @ApiProperty({ description: 'The event id: the `webhook-id` header and the body `id`, the same on every retry.' }) event_id!: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE] }) event_type!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When a pending delivery is tried next.' }) next_attempt_at!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) last_status!: number | null;
  @ApiProperty({ type: 'string', nullable: true }) last_error!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) delivered_at!: string | null;
  @ApiProperty({ type: [WebhookAttemptBody], description: 'The last 10 attempts, oldest first.' }) attempt_log!: WebhookAttemptBody[];
}

export class WebhookDeliveryPageBody {
  @ApiProperty({ type: [WebhookDeliveryBody], description: 'Newest first.' }) deliveries!: WebhookDeliveryBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class WebhookDeliveryOneBody {
  @ApiProperty({ type: WebhookDeliveryBody }) delivery!: WebhookDeliveryBody;
}

export class WebhookEndpointOneBody {
  @ApiProperty({ type: WebhookEndpointBody }) endpoint!: WebhookEndpointBody;
}

export function toEndpointBody(v: EndpointView): WebhookEndpointBody {
  return {
    id: v.id,
    url: v.url,
    description: v.description,
    event_types: [...v.eventTypes],
    enabled: v.enabled,
    disabled_reason: v.disabledReason,
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
    secret_rotation_ends_at: v.secretRotationEndsAt?.toISOString() ?? null,
  };
}

export function toEndpointCreatedBody(v: EndpointWithSecret): WebhookEndpointCreatedBody {
  return { endpoint: toEndpointBody(v.endpoint), secret: v.secret };
}

function toAttemptBody(a: AttemptView): WebhookAttemptBody {
  return {
    attempt: a.attempt,
    started_at: a.startedAt.toISOString(),
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    response_excerpt: a.responseExcerpt,
    error: a.error,
  };
}

export function toDeliveryBody(v: DeliveryView): WebhookDeliveryBody {
  return {
    id: v.id,
    endpoint_id: v.endpointId,
    event_id: v.eventId,
    event_type: v.eventType,
    status: v.status,
    attempts: v.attempts,
    next_attempt_at: v.nextAttemptAt?.toISOString() ?? null,
    last_status: v.lastStatus,
    last_error: v.lastError,
    created_at: v.createdAt.toISOString(),
    delivered_at: v.deliveredAt?.toISOString() ?? null,
    attempt_log: v.attemptLog.map(toAttemptBody),
  };
}
