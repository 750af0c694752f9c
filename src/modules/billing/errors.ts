import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the billing context (docs/billing.md). */
export const BILLING_ERRORS = {
  plan_unchanged: 409,
  no_subscription: 409,
  payment_provider_unavailable: 503,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    billing: typeof BILLING_ERRORS;
  }
}
