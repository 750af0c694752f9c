import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the publishing context (contract §2). */
export const PUBLISHING_ERRORS = {
  invalid_oauth_state: 400,
  content_not_approved: 409,
  already_scheduled: 409,
  integration_not_connected: 409,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    publishing: typeof PUBLISHING_ERRORS;
  }
}
