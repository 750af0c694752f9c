export * from './idempotency.module.js';
export * from './idempotent.decorator.js';
export { IDEMPOTENCY_HEADER, REPLAYED_HEADER, KEY_TTL_SECONDS } from './idempotency-key.js';
export { IDEMPOTENCY_ERRORS } from './errors.js';
