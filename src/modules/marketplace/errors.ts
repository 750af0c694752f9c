import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the marketplace context (contract §2). */
export const MARKETPLACE_ERRORS = {
  cannot_purchase_own_listing: 409,
  listing_unavailable: 409,
  already_purchased: 409,
  listing_exists: 409,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    marketplace: typeof MARKETPLACE_ERRORS;
  }
}
