import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the auth context (contract §2). */
export const AUTH_ERRORS = {
  invalid_credentials: 401,
  invalid_refresh_token: 401,
  refresh_token_reused: 401,
  email_taken: 409,
  invalid_verification_token: 400,
  current_password_incorrect: 403,
  email_already_verified: 409,
  invalid_reset_token: 400,
  invalid_mfa_code: 400,
  invalid_mfa_token: 401,
  mfa_already_enabled: 409,
  mfa_setup_required: 409,
  mfa_not_enabled: 409,
  workspace_has_members: 409,
  export_expired: 410,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    auth: typeof AUTH_ERRORS;
  }
}
