import type { ErrorTable } from '../../../core/errors.js';

/** Error codes of white-label branding (contract §2, §14). */
export const BRANDING_ERRORS = {
  /** The custom domain already belongs to another workspace. */
  domain_taken: 409,
} as const satisfies ErrorTable;

declare module '../../../core/errors.js' {
  interface ErrorCodeRegistry {
    branding: typeof BRANDING_ERRORS;
  }
}
