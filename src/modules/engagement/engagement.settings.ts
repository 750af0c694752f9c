/**
 * Engagement settings (docs/engagement.md), read by the configuration (src/config/config.ts composes
 * them). The platforms' webhook secrets default to the publishing credentials of the same app.
 */
export interface EngagementSettings {
  /** `INSTAGRAM_APP_SECRET`: signs Instagram's deliveries (`X-Hub-Signature-256`); default `INSTAGRAM_CLIENT_SECRET`. */
  readonly instagramAppSecret: string | null;
  /** `INSTAGRAM_WEBHOOK_VERIFY_TOKEN`: what Meta's subscription check (`hub.verify_token`) must send back. */
  readonly instagramVerifyToken: string | null;
  /** `X_CONSUMER_SECRET`: the X app's consumer secret, for the CRC check and `x-twitter-webhooks-signature`; default `TWITTER_CLIENT_SECRET`. */
  readonly xConsumerSecret: string | null;
  /** `ENGAGEMENT_POLL_INTERVAL` (ms): how often comments are read where a platform has no webhooks (YouTube). */
  readonly pollIntervalMs: number;
  /** `ENGAGEMENT_SEND_LEASE` (ms): a reply left `sending` this long by a stopped worker is failed as `unconfirmed`. */
  readonly sendLeaseMs: number;
}

type Env = Record<string, string | undefined>;

function value(env: Env, name: string): string | null {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? null : v;
}

function millis(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new Error(`${name} must be a whole number of milliseconds from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** Throws an Error whose message is the one line start-up prints for a bad setting. */
export function parseEngagementSettings(env: Env): EngagementSettings {
  return {
    instagramAppSecret: value(env, 'INSTAGRAM_APP_SECRET') ?? value(env, 'INSTAGRAM_CLIENT_SECRET'),
    instagramVerifyToken: value(env, 'INSTAGRAM_WEBHOOK_VERIFY_TOKEN'),
    xConsumerSecret: value(env, 'X_CONSUMER_SECRET') ?? value(env, 'TWITTER_CLIENT_SECRET'),
    pollIntervalMs: millis(env, 'ENGAGEMENT_POLL_INTERVAL', 300_000, 100, 86_400_000),
    sendLeaseMs: millis(env, 'ENGAGEMENT_SEND_LEASE', 120_000, 1_000, 3_600_000),
  };
}
