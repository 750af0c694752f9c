import type { ErrorTable } from '../../core/errors.js';

/**
 * Error codes of the organisations context (contract §2, §14). `slug_taken`, `member_exists`,
 * `invitation_expired` and `invitation_email_mismatch` are ours: the contract leaves those cases open.
 */
export const ORGANISATIONS_ERRORS = {
  last_owner: 409,
  member_limit_reached: 403,
  slug_taken: 409,
  member_exists: 409,
  invitation_expired: 410,
  invitation_email_mismatch: 403,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    organisations: typeof ORGANISATIONS_ERRORS;
  }
}
