/**
 * Engagement settings (docs/engagement.md), read by the configuration (src/config/config.ts composes
 * them). The platforms' webhook secrets default to the publishing credentials of the same app.
 */
import { settingValue, wholeMillis as millis, type Env } from '../../core/setting-readers.js';
export interface EngagementSettings {
  /** `INSTAGRAM_APP_SECRET`: signs Instagram's deliveries (`X-Hub-Signature-256`); default `INSTAGRAM_CLIENT_SECRET`. */
  readonly instagramAppSecret: string | null;
  /** `INSTAGRAM_WEBHOOK_VERIFY_TOKEN`: what Meta's subscription check (`hub.verify_token`) must send back. */
  readonly instagramVerifyToken: string | null;
  /** `X_CONSUMER_SECRET`: the X app's consumer secret, for the CRC check and `x-twitter-webhooks-signature`; default `TWITTER_CLIENT_SECRET`. */
  readonly xConsumerSecret: string | null;
  /** `ENGAGEMENT_POLL_INTERVAL` (ms): how often comments are read where a platform has no webhooks (YouTube). */
  readonly pollIntervalMs: number;
  /** `ENGAGEMENT_POLL_PLATFORMS`: whose comments are read by polling: `youtube` (no webhooks), and `twitter` where the X plan has no Account Activity API. */
  readonly pollPlatforms: ReadonlyArray<'youtube' | 'twitter'>;
  /** `ENGAGEMENT_SEND_LEASE` (ms): a reply left `sending` this long by a stopped worker is failed as `unconfirmed`. */
  readonly sendLeaseMs: number;
}

/** Throws an Error whose message is the one line start-up prints for a bad setting. */
export function parseEngagementSettings(env: Env): EngagementSettings {
  const polled = (settingValue(env, 'ENGAGEMENT_POLL_PLATFORMS') ?? 'youtube').split(',').map((p) => p.trim().toLowerCase()).map((p) => (p === 'x' ? 'twitter' : p));
  const unknown = polled.filter((p) => p !== 'youtube' && p !== 'twitter');
  if (unknown.length > 0) throw new Error(`ENGAGEMENT_POLL_PLATFORMS may list youtube and twitter (or x), got "${unknown.join(', ')}"`);
  return {
    pollPlatforms: [...new Set(polled as Array<'youtube' | 'twitter'>)],
    instagramAppSecret: settingValue(env, 'INSTAGRAM_APP_SECRET') ?? settingValue(env, 'INSTAGRAM_CLIENT_SECRET') ?? null,
    instagramVerifyToken: settingValue(env, 'INSTAGRAM_WEBHOOK_VERIFY_TOKEN') ?? null,
    xConsumerSecret: settingValue(env, 'X_CONSUMER_SECRET') ?? settingValue(env, 'TWITTER_CLIENT_SECRET') ?? null,
    pollIntervalMs: millis(env, 'ENGAGEMENT_POLL_INTERVAL', 300_000, 100, 86_400_000),
    sendLeaseMs: millis(env, 'ENGAGEMENT_SEND_LEASE', 120_000, 1_000, 3_600_000),
  };
}
