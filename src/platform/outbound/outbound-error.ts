/** Why an outbound call failed; callers decide what each means for their users. */
export type OutboundErrorKind =
  | 'timeout'
  | 'aborted'
  | 'http'
  | 'network'
  | 'too_large'
  | 'bad_response'
  | 'invalid_url'
  | 'blocked'
  | 'unsupported_type'
  | 'too_many_redirects';

export interface OutboundErrorInit {
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  /** The start of an error response's body, for logs and messages; never the whole body. */
  bodySnippet?: string;
  cause?: unknown;
}

/** The one error type of the outbound layer: typed by kind, never an HTTP exception. */
export class OutboundError extends Error {
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly bodySnippet?: string;
  /** How many attempts were made before giving up; set by the retry loop. */
  attempts = 1;

  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    init: OutboundErrorInit = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'OutboundError';
    this.status = init.status;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.bodySnippet = init.bodySnippet;
  }
}

export function isOutboundError(err: unknown): err is OutboundError {
  return err instanceof OutboundError;
}
