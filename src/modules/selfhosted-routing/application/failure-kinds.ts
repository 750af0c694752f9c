import { isOutboundError } from '../../../platform/outbound/index.js';

/**
 * Whether a failed self-hosted request counts against the endpoint's circuit: timeouts, 5xx,
 * refused or reset connections and unreadable answers do; a 4xx (our request was bad) does not,
 * nor an error of our own code. 408 and 429 say the server is too busy, so they count. A redirect
 * (never followed) and an address refused at connect time count too: the endpoint, or what its
 * name now points to, is wrong, and only its operator can fix that.
 */
export function countsAgainstEndpoint(err: unknown, timedOut: boolean): boolean {
  if (timedOut) return true;
  if (!isOutboundError(err)) return false;
  switch (err.kind) {
    case 'timeout':
    case 'network':
    case 'bad_response':
    case 'too_large':
    case 'blocked':
      return true;
    case 'http': {
      const status = err.status ?? 500;
      return status >= 500 || (status >= 300 && status <= 399) || status === 408 || status === 429;
    }
    default:
      return false;
  }
}

/** A short description for the endpoint's `last_error` and the log: never a response body. */
export function describeFailure(err: unknown, timedOut: boolean): string {
  if (timedOut) return 'timed out (the self-hosted budget ran out)';
  if (isOutboundError(err)) return err.kind === 'http' ? `answered ${err.status}` : `${err.kind}: ${err.message}`;
  return 'failed unexpectedly';
}
