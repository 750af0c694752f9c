import type { ErrorTable } from '../../core/errors.js';

/** Error codes of `Idempotency-Key` handling (contract §2). */
export const IDEMPOTENCY_ERRORS = {
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    idempotency: typeof IDEMPOTENCY_ERRORS;
  }
}
