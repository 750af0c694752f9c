import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the content context (contract §2). */
export const CONTENT_ERRORS = {
  variants_locked: 409,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    content: typeof CONTENT_ERRORS;
  }
}
