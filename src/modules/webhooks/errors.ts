import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the webhooks context (docs/webhooks.md). */
export const WEBHOOKS_ERRORS = {
  webhook_endpoint_limit_reached: 403,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    webhooks: typeof WEBHOOKS_ERRORS;
  }
}
