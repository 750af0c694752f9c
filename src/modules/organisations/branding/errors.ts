import type { ErrorTable } from '../../../core/errors.js';

/** Error codes of white-label branding (contract §2, §14). */
export const BRANDING_ERRORS = {
  /** Another workspace has verified this custom domain. */
  domain_taken: 409,
  /** The custom domain looks like (same skeleton as) a domain another workspace has verified. */
  domain_confusable: 409,
} as const satisfies ErrorTable;

declare module '../../../core/errors.js' {
  interface ErrorCodeRegistry {
    branding: typeof BRANDING_ERRORS;
  }
}
