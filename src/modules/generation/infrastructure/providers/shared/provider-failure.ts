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
