import type { components } from './generated/schema.js';

/** The one error body every route answers with (`{statusCode, code, message, details?, request_id}`). */
export type ErrorBody = components['schemas']['ErrorBody'];
/** Every error code the API documents (docs/errors.md). */
export type ErrorCode = ErrorBody['code'];
/** `validation_failed`: one `{field, message}` per refused field; other codes: an object of facts. */
export type ErrorDetails = ErrorBody['details'];

/** What an answer that is not the API's error body (a proxy's HTML page, an empty 502) is reported as. */
export const UNEXPECTED_RESPONSE = 'unexpected_response';

function isErrorBody(value: unknown): value is ErrorBody {
  const body = value as Partial<ErrorBody> | null;
  return typeof body === 'object' && body !== null && typeof body.code === 'string' && typeof body.message === 'string';
}

/** An error answer of the API, with its documented code and details. */
export class PersonaApiError extends Error {
  override name = 'PersonaApiError';
  readonly status: number;
  readonly code: ErrorCode | typeof UNEXPECTED_RESPONSE;
  readonly details: ErrorDetails | undefined;
  readonly requestId: string | undefined;
  /** The answer's body as received (parsed JSON when it was JSON). */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const known = isErrorBody(body) ? body : undefined;
    super(known?.message ?? `The API answered ${status} without an error body.`);
    this.status = status;
    this.code = known?.code ?? UNEXPECTED_RESPONSE;
    this.details = known?.details;
    this.requestId = known?.request_id;
    this.body = body;
  }

  /** The `{field, message}` list of a `validation_failed` answer (empty for other codes). */
  get fieldErrors(): Array<{ field: string; message: string }> {
    return Array.isArray(this.details) ? this.details : [];
  }
}

/**
 * The session could not be refreshed: its refresh token is unknown or expired
 * (`invalid_refresh_token`), or was already used (`refresh_token_reused`, which ends the session
 * everywhere). Sign in again.
 */
export class SessionRefreshError extends PersonaApiError {
  override name = 'SessionRefreshError';
}

/** An openapi-fetch answer: data on success, error otherwise, and the raw response. */
interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful answer, or a PersonaApiError for an error answer:
 * `const { character } = unwrap(await client.POST('/public/characters', { body }))`.
 */
export function unwrap<R extends FetchResult>(result: R): NonNullable<R['data']> {
  if (!result.response.ok) throw new PersonaApiError(result.response.status, result.error);
  return result.data as NonNullable<R['data']>;
}
