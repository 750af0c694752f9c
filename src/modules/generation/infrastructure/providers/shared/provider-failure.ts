import { AppError } from '../../../../../core/index.js';
import { isOutboundError } from '../../../../../platform/outbound/index.js';

export type ProviderName = 'replicate' | 'openai' | 'elevenlabs' | 'd-id' | 'local';

const LABEL: Record<ProviderName, string> = { replicate: 'Replicate', openai: 'The text model', elevenlabs: 'ElevenLabs', 'd-id': 'D-ID', local: 'The local renderer' };

/**
 * The one failure shape of every provider adapter (contract: 502 upstream_failed). `reason` is
 * machine-readable: timeout, aborted, http_error, network, too_large, bad_response,
 * prediction_failed, prediction_canceled, not_configured, bad_input (what we sent cannot be
 * used); ElevenLabs adds quota_exceeded, unauthorized, busy and rate_limited, the offline
 * synthesiser synthesis_failed and encoding_failed, D-ID talk_failed and talk_rejected.
 */
export function upstreamFailed(provider: ProviderName, reason: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('upstream_failed', message, { provider, reason, ...extra });
}

/** Reasons a provider call fails again the same way when repeated: what came back, or what we asked, cannot be used. */
const LASTING_REASONS = new Set(['bad_response', 'bad_input', 'not_configured', 'too_large', 'prediction_failed', 'talk_rejected']);

/**
 * Whether a provider failure would happen again on a retry, so work that would retry it (an outbox
 * subscriber, with back-off for hours) should settle instead: an answer we cannot use, a request
 * the provider cannot take, a missing configuration, or a 4xx other than 408 and 429. Timeouts,
 * network failures, 5xx, 408 and 429 pass with time.
 */
export function failsForGood(err: unknown): boolean {
  if (!(err instanceof AppError) || err.code !== 'upstream_failed') return false;
  const { reason, status } = (err.details ?? {}) as { reason?: unknown; status?: unknown };
  if (typeof reason === 'string' && LASTING_REASONS.has(reason)) return true;
  return reason === 'http_error' && typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Maps what the outbound layer threw; AppErrors pass through, anything unknown is rethrown. */
export function fromOutbound(provider: ProviderName, err: unknown, what: string): Error {
  if (err instanceof AppError || !isOutboundError(err)) return err as Error;
  const label = LABEL[provider];
  switch (err.kind) {
    case 'timeout':
      return upstreamFailed(provider, 'timeout', `${label} did not answer in time (${what}).`);
    case 'aborted':
      return upstreamFailed(provider, 'aborted', `The ${what} was cancelled.`);
    case 'http': {
      const detail = err.bodySnippet ? `: ${err.bodySnippet.slice(0, 300)}` : '';
      return upstreamFailed(provider, 'http_error', `${label} answered ${err.status} to the ${what}${detail}`, { status: err.status, attempts: err.attempts });
    }
    case 'too_large':
      return upstreamFailed(provider, 'too_large', `${label} sent more than we accept for the ${what}.`);
    case 'bad_response':
      return upstreamFailed(provider, 'bad_response', `${label} answered the ${what} with something we cannot read.`);
    default:
      return upstreamFailed(provider, 'network', `${label} could not be reached for the ${what}: ${err.message}`, { attempts: err.attempts });
  }
}
