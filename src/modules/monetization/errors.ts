import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the monetization context (docs/monetization.md). */
export const MONETIZATION_ERRORS = {
  /** A shortcode already used by any link of the service (the public redirect takes the shortcode alone). */
  shortcode_taken: 409,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    monetization: typeof MONETIZATION_ERRORS;
  }
}
