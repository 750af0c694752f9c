/**
 * Application error codes (contract §2). The kernel declares only the codes several contexts or
 * platform parts throw; each context declares its own codes in its `errors.ts` and registers that
 * table in `ErrorCodeRegistry` by module augmentation. Only the HTTP edge turns a code into a
 * status, from the one map it assembles out of every registered table (`src/error-codes.ts`).
 */

/** The statuses an error code may answer with. */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504;

/** One owner's codes and their status: `{ ... } as const satisfies ErrorTable`. */
export type ErrorTable = Readonly<Record<string, ErrorStatus>>;

/** Codes thrown across contexts and by the platform. */
export const CORE_ERRORS = {
  validation_failed: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  invalid_state_transition: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  upstream_failed: 502,
  storage_unavailable: 503,
  service_unavailable: 503,
} as const satisfies ErrorTable;

/**
 * Every owner's table, by owner name. A context adds its own in its `errors.ts`:
 *
 *     export const MARKETPLACE_ERRORS = { listing_unavailable: 409 } as const satisfies ErrorTable;
 *     declare module '../../core/errors.js' {
 *       interface ErrorCodeRegistry { marketplace: typeof MARKETPLACE_ERRORS }
 *     }
 *
 * and the edge's map must then include that table, or `tsc` fails.
 */
export interface ErrorCodeRegistry {
  core: typeof CORE_ERRORS;
}

/** All registered tables; the edge's assembly takes exactly this shape. */
export type ErrorTables = { readonly [Owner in keyof ErrorCodeRegistry]: ErrorCodeRegistry[Owner] };

/** The codes of a set of tables. */
export type CodesOf<Tables> = { [Owner in keyof Tables]: keyof Tables[Owner] & string }[keyof Tables];

/** Every code any registered table declares; `new AppError('typo', ...)` does not compile. */
export type ErrorCode = CodesOf<ErrorCodeRegistry>;

/** Codes declared by two registered tables (must be `never`; the edge checks it). */
export type SharedCodes<Tables> = {
  [A in keyof Tables]: { [B in Exclude<keyof Tables, A>]: keyof Tables[A] & keyof Tables[B] & string }[Exclude<keyof Tables, A>];
}[keyof Tables];

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

  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found.`);
  }

  static invalidTransition(from: string, action: string): AppError {
    return new AppError('invalid_state_transition', `Cannot ${action} from status ${from}.`, { from, action });
  }
}
