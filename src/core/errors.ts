/** Application error codes and their HTTP status (contract §2). Only the HTTP edge reads the status. */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_oauth_state: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  invalid_refresh_token: 401,
  refresh_token_reused: 401,
  session_required: 401,
  api_key_required: 401,
  insufficient_credits: 402,
  plan_required: 403,
  insufficient_scope: 403,
  forbidden: 403,
  character_limit_reached: 403,
  not_found: 404,
  email_taken: 409,
  invalid_state_transition: 409,
  content_not_approved: 409,
  variants_locked: 409,
  already_scheduled: 409,
  integration_not_connected: 409,
  cannot_purchase_own_listing: 409,
  listing_unavailable: 409,
  already_purchased: 409,
  listing_exists: 409,
  insufficient_training_images: 409,
  training_in_progress: 409,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream_failed: 502,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorDetails = Record<string, unknown> | Array<{ field: string; message: string }>;

/** The one error type the application throws; the global filter maps `code` to a status. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found.`);
  }

  static invalidTransition(from: string, action: string): AppError {
    return new AppError('invalid_state_transition', `Cannot ${action} from status ${from}.`, { from, action });
  }
}
