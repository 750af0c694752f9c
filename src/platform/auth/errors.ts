import type { ErrorTable } from '../../core/errors.js';

/** Error codes only the access guard throws: a route's declared surface, plans, workspace role or scopes, a verified-email need, or the workspace's two-factor requirement, refuse the caller (contract §2). */
export const ACCESS_ERRORS = {
  session_required: 401,
  api_key_required: 401,
  plan_required: 403,
  insufficient_scope: 403,
  insufficient_role: 403,
  email_not_verified: 403,
  mfa_required: 403,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    access: typeof ACCESS_ERRORS;
  }
}
