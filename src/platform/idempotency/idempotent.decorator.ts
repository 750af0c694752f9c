import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiErrors } from '../http/index.js';
import { IDEMPOTENCY_HEADER, KEY_TTL_SECONDS, REPLAYED_HEADER } from './idempotency-key.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/**
 * Opts a POST route in to `Idempotency-Key`. The module of the route's controller must import
 * `IdempotencyModule` (it is global once imported anywhere).
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: false,
      description:
        `1-255 printable characters, unique per intended action. A retry with the same key and request answers the first ` +
        `result again with \`${REPLAYED_HEADER}: true\` (kept ${KEY_TTL_SECONDS / 3600} h, per workspace); the same key with ` +
        'another request is 422 idempotency_key_reused; while the first is running, 409 idempotency_in_progress. ' +
        'A request that failed keeps nothing: retrying it runs it again.',
    }),
    ApiErrors('idempotency_in_progress', 'idempotency_key_reused'),
  );
}
