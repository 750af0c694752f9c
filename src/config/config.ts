import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { parseBillingSettings, type BillingSettings } from '../modules/billing/billing.settings.js';
import { parseWebhooksSettings, type WebhooksSettings } from '../modules/webhooks/webhooks.settings.js';
import { parseNotificationsSettings, type NotificationsSettings } from '../modules/notifications/notifications.settings.js';
import { parseEngagementSettings, type EngagementSettings } from '../modules/engagement/engagement.settings.js';
import { parseMonetizationSettings, type MonetizationSettings } from '../modules/monetization/monetization.settings.js';

/** Raised for a bad setting; start-up prints its one line and stops. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

/** A positive number of hours, fractions allowed (tests shorten it to seconds). */
function positiveHours(env: Env, name: string, fallback: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(n > 0) || n > max) {
    throw new ConfigError(`${name} must be a number of hours above 0 and at most ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[], trimSlash = true): string | undefined {
  const raw = optional(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return trimSlash ? raw.replace(/\/+$/, '') : raw;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Words that mark a value someone meant to replace; a production key containing one is refused. */
const PLACEHOLDER_WORDS = ['changeme', 'replaceme', 'secret', 'password', 'passwd', 'example', 'placeholder', 'default', 'letmein', 'qwerty'];
const MIN_DISTINCT_CHARACTERS = 8;

/**
 * Why a key we sign or encrypt with is too weak for production, or undefined. The rule: at least
 * `minLength` characters, at least 8 different ones, not a shorter string repeated, and no
 * placeholder word (letters and digits compared, case ignored). `openssl rand -base64 48` passes;
 * 32 random hex digits fail the distinct-character test about once in 30 million.
 */
function weakness(value: string, minLength: number): string | undefined {
  if (value.length < minLength) return `must be at least ${minLength} characters`;
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS) return `must use at least ${MIN_DISTINCT_CHARACTERS} different characters`;
  if (/^(.+?)\1+$/s.test(value)) return 'must not be a shorter string repeated';
  const letters = value.toLowerCase().replace(/[^a-z0-9]/g, '');
  const word = PLACEHOLDER_WORDS.find((w) => letters.includes(w));
  if (word !== undefined) return `must not contain the placeholder "${word}"`;
  return undefined;
}

/** Secrets unset in development are generated once and kept in DATA_DIR; production must set them, strong. */
function secret(env: Env, name: string, production: boolean, dataDir: string, minLength: number): string {
  const given = optional(env, name);
  if (given !== undefined) {
    if (given.length < minLength) throw new ConfigError(`${name} must be at least ${minLength} characters`);
    const weak = production ? weakness(given, minLength) : undefined;
    if (weak !== undefined) throw new ConfigError(`${name} is too weak for production: it ${weak} (generate one with: openssl rand -base64 48)`);
    return given;
  }
  if (production) throw new ConfigError(`${name} is required when NODE_ENV=production`);
  const file = join(dataDir, 'secrets.json');
  const kept: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  if (!kept[name]) {
    kept[name] = randomBytes(32).toString('base64url');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(kept, null, 2), { mode: 0o600 });
  }
  return kept[name];
}

/**
 * The key media URLs are signed with: `MEDIA_SIGNING_KEY` when given (as strong as the other secrets
 * and equal to none of them), else derived from `JWT_SECRET` under its own label, so the two keys
 * never sign the same thing and a leaked signed URL says nothing about the token key.
 */
function mediaSigningKey(env: Env, jwtSecret: string, tokenEncryptionKey: string, production: boolean): string {
  const given = optional(env, 'MEDIA_SIGNING_KEY');
  if (given === undefined) return createHmac('sha256', jwtSecret).update('persona-studio/media-url-signing/v1').digest('base64url');
  if (given.length < 32) throw new ConfigError('MEDIA_SIGNING_KEY must be at least 32 characters');
  const weak = production ? weakness(given, 32) : undefined;
  if (weak !== undefined) throw new ConfigError(`MEDIA_SIGNING_KEY is too weak for production: it ${weak} (generate one with: openssl rand -base64 48)`);
  if (given === jwtSecret || given === tokenEncryptionKey) throw new ConfigError('MEDIA_SIGNING_KEY must differ from JWT_SECRET and TOKEN_ENCRYPTION_KEY');
  return given;
}

export type StorageDriver = 'local' | 's3';

/** Credit prices of paid actions (contract §3); each is configurable. */
export interface CreditPrices {
  imagePerImage: number;
  captionVariants: number;
  weekPlanPerItem: number;
  videoPerSecond: number;
  talkingHeadPreview: number;
  talkingHeadPerSecond: number;
  talkingHeadMinSeconds: number;
  motionTransferPerFiveSeconds: number;
  voiceClone: number;
  voicePreview: number;
  voicePer100Chars: number;
  lora: number;
}

export interface ProviderSettings {
  /** `local` renders offline; `replicate` speaks Replicate's predictions API at `replicateUrl`. */
  media: 'local' | 'replicate';
  replicateUrl: string;
  replicateToken?: string;
  replicateImageModel: string;
  replicateVideoModel: string;
  replicateMotionModel: string;
  /** `local` writes from templates; `openai` speaks the chat completions API at `openaiUrl`. */
  text: 'local' | 'openai';
  openaiUrl: string;
  openaiKey?: string;
  openaiModel: string;
  timeoutMs: number;
  maxDownloadBytes: number;
}

export const LORA_BASE_MODELS = ['flux-dev', 'sdxl'] as const;
export type LoraBaseModel = (typeof LORA_BASE_MODELS)[number];

/** Self-hosted GPU routing (contract §13); the windows are settings so tests can run them in seconds. */
export interface SelfHostedSettings {
  /** The whole self-hosted attempt of one job, its retries included; past it the job goes to the cloud. */
  budgetMs: number;
  /** Further attempts after the first, on another eligible endpoint when there is one. */
  retries: number;
  /** How long a health probe's answer counts. */
  healthTtlMs: number;
  /** Consecutive counted failures (timeouts, 5xx, refused or reset connections) that open a circuit. */
  circuitThreshold: number;
  /** How long an open circuit stays open before one trial request is let through. */
  circuitResetMs: number;
  /** A held concurrency slot lives this long unless its process renews it; a process that died frees it so. */
  leaseMs: number;
  /** How often a job-consuming process probes every active endpoint (0: only on refresh and when stale). */
  healthIntervalMs: number;
  /** How long one health probe may take. */
  probeTimeoutMs: number;
}

export interface LoraSettings {
  /** `local` trains a style vector offline; `replicate` trains on Replicate's trainings API. Defaults to MEDIA_PROVIDER. */
  provider: 'local' | 'replicate';
  /** The Replicate trainer per base model, `owner/name` (its latest version) or `owner/name:version`. */
  trainers: Readonly<Record<LoraBaseModel, string>>;
  /** The model images with a ready LoRA run on, per base model (it must take `lora_weights` or `replicate_weights`). */
  imageModels: Readonly<Record<LoraBaseModel, string>>;
  /** The Replicate account that owns the per-workspace destination models; undefined: the token's own account. */
  destinationOwner?: string;
  /** `whsec_…`; undefined: fetched once from Replicate (`GET /v1/webhooks/default/secret`). */
  webhookSecret?: string;
  /** Where Replicate posts training events; null turns webhooks off (polling alone). */
  webhookUrl: string | null;
  /** How often a waiting training asks the provider when no webhook moved it. */
  pollIntervalMs: number;
  /** How often a waiting training re-reads its row (webhooks write it). */
  checkIntervalMs: number;
  /** A training running longer than this is cancelled at the provider and fails (refunded). */
  timeoutMs: number;
  /** How strongly a ready LoRA is applied to images (Replicate's `lora_scale`, the local blend). */
  scale: number;
}

export interface VoiceProviderSettings {
  /** `local` speaks offline (eSpeak NG); `elevenlabs` speaks ElevenLabs' API at `elevenlabsUrl`. */
  provider: 'local' | 'elevenlabs';
  elevenlabsUrl: string;
  elevenlabsKey?: string;
  /** ElevenLabs' model for speech, unless a character's settings name another. */
  defaultModelId: string;
  /** ElevenLabs calls one process makes at once (the plan's concurrency limit). */
  concurrency: number;
  timeoutMs: number;
}

export interface AnalyticsSettings {
  /** `ANALYTICS_SYNC_INTERVAL_MS`: how often each connection's metrics are synced (default 6 h). */
  syncIntervalMs: number;
  /** `ANALYTICS_SCHEDULER_TICK_MS`: how often a consuming process looks for due syncs. */
  schedulerTickMs: number;
}

/** Data export and account deletion (docs/accounts-data.md). */
export interface DataRightsSettings {
  /** `ACCOUNT_DELETION_GRACE_DAYS`: from the request to the purge (fractions allowed: tests use seconds). */
  deletionGraceMs: number;
  /** `ACCOUNT_PURGE_TICK_MS`: how often a consuming process looks for due deletions and expired exports. */
  purgeTickMs: number;
}

function dataRightsSettings(env: Env): DataRightsSettings {
  const grace = str(env, 'ACCOUNT_DELETION_GRACE_DAYS', '30');
  const days = Number(grace);
  if (!/^\d+(\.\d+)?$/.test(grace) || !(days > 0) || days > 365) {
    throw new ConfigError(`ACCOUNT_DELETION_GRACE_DAYS must be a number of days above 0 and at most 365, got "${grace}"`);
  }
  return { deletionGraceMs: Math.round(days * 24 * 3600 * 1000), purgeTickMs: int(env, 'ACCOUNT_PURGE_TICK_MS', 60_000, 100, 86_400_000) };
}

/** Custom-domain verification (docs/branding-domains.md). */
export interface DomainSettings {
  /** `DNS_RESOLVER_SERVERS`: `ip`, `ip:port` or `[ipv6]:port`, comma-separated; empty: the system's resolvers. */
  resolverServers: string[];
  /** `DNS_LOOKUP_TIMEOUT_MS`: one TXT query's timeout (tried twice). */
  lookupTimeoutMs: number;
  /** `DOMAIN_CHECK_INTERVAL_MS`: the first re-check of a pending claim; the gap doubles after each. */
  pendingCheckMs: number;
  /** `DOMAIN_RECHECK_INTERVAL_MS`: how often a verified domain is re-checked (and the longest pending gap). */
  verifiedCheckMs: number;
  /** `DOMAIN_PENDING_TTL_HOURS`: a claim not proven in this time fails. */
  pendingTtlMs: number;
  /** `DOMAIN_MISSES_BEFORE_FAILED`: consecutive checks without the record that fail a verified domain. */
  missesBeforeFailed: number;
  /** `DOMAIN_SCHEDULER_TICK_MS`: how often a consuming process looks for due checks. */
  schedulerTickMs: number;
}

/** `DNS_RESOLVER_SERVERS`, each entry checked to be an address (with an optional port). */
function dnsServers(env: Env, name: string): string[] {
  const entries = str(env, name, '').split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry) ?? /^([^:]+)(?::(\d{1,5}))?$/.exec(entry) ?? [entry, entry, undefined];
    const port = m[2] === undefined ? 53 : Number(m[2]);
    if (!isIP(m[1]) || port < 1 || port > 65535) throw new ConfigError(`${name} must list IP addresses, each optionally with :port, got "${entry}"`);
  }
  return entries;
}

export interface TalkingHeadSettings {
  /** `local` renders offline with the bundled ffmpeg; `d-id` speaks D-ID's talks API at `didUrl`. */
  provider: 'local' | 'd-id';
  didUrl: string;
  /** D-ID's API key as its console shows it (sent as `Authorization: Basic <key>`). */
  didKey?: string;
  timeoutMs: number;
}

export const PUBLISH_PLATFORMS = ['instagram', 'tiktok', 'twitter', 'youtube', 'pinterest'] as const;
export type PublishPlatform = (typeof PUBLISH_PLATFORMS)[number];

/** One platform's OAuth client and API addresses; a platform without them runs in sandbox mode. */
export interface PlatformCredentials {
  clientId: string;
  clientSecret: string;
  apiUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  uploadUrl: string;
}

export interface PublishingSettings {
  /** Undefined: the platform has no client credentials and runs in sandbox mode (contract §8). */
  platforms: Readonly<Record<PublishPlatform, PlatformCredentials | undefined>>;
  /** Budget of one platform HTTP call. */
  timeoutMs: number;
  pollIntervalMs: number;
  pollTimeoutMs: number;
  /**
   * A claim its attempt stopped renewing (every third of it) for this long is taken over by the
   * sweeper. Default 40 s: the 30 s call budget and the platforms' 10 s grace, so a dead worker's
   * post is taken over within about a minute.
   */
  leaseSeconds: number;
  /** How often the dispatcher asks PostgreSQL for due posts when it found none. */
  dispatchIntervalMs: number;
  dispatchBatch: number;
  /** Publish calls one consuming process makes at once. */
  concurrency: number;
  /** The posting timezone (calendar, week plans, slots) of a character whose own timezone and identity location name none. */
  defaultTimezone: string;
}

const PLATFORM_DEFAULTS: Record<PublishPlatform, Omit<PlatformCredentials, 'clientId' | 'clientSecret'>> = {
  instagram: {
    apiUrl: 'https://graph.facebook.com/v21.0',
    authorizeUrl: 'https://www.facebook.com/v21.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v21.0/oauth/access_token',
    uploadUrl: 'https://graph.facebook.com/v21.0',
  },
  tiktok: {
    apiUrl: 'https://open.tiktokapis.com',
    authorizeUrl: 'https://www.tiktok.com/v2/auth/authorize/',
    tokenUrl: 'https://open.tiktokapis.com/v2/oauth/token/',
    uploadUrl: 'https://open.tiktokapis.com',
  },
  twitter: {
    apiUrl: 'https://api.x.com',
    authorizeUrl: 'https://x.com/i/oauth2/authorize',
    tokenUrl: 'https://api.x.com/2/oauth2/token',
    uploadUrl: 'https://api.x.com',
  },
  youtube: {
    apiUrl: 'https://www.googleapis.com/youtube/v3',
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    uploadUrl: 'https://www.googleapis.com/upload/youtube/v3',
  },
  pinterest: {
    apiUrl: 'https://api.pinterest.com/v5',
    authorizeUrl: 'https://www.pinterest.com/oauth/',
    tokenUrl: 'https://api.pinterest.com/v5/oauth/token',
    uploadUrl: 'https://api.pinterest.com/v5',
  },
};

function platformCredentials(env: Env, platform: PublishPlatform): PlatformCredentials | undefined {
  const prefix = platform.toUpperCase();
  const clientId = optional(env, `${prefix}_CLIENT_ID`);
  const clientSecret = optional(env, `${prefix}_CLIENT_SECRET`);
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw new ConfigError(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
  }
  if (clientId === undefined || clientSecret === undefined) return undefined;
  const d = PLATFORM_DEFAULTS[platform];
  // Base URLs lose a trailing slash (paths are appended); endpoints are used exactly as given.
  const address = (name: string, fallback: string, trimSlash = true): string => url(env, `${prefix}_${name}`, fallback, ['http:', 'https:'], trimSlash)!;
  return {
    clientId,
    clientSecret,
    apiUrl: address('API_URL', d.apiUrl),
    authorizeUrl: address('AUTHORIZE_URL', d.authorizeUrl, false),
    tokenUrl: address('TOKEN_URL', d.tokenUrl, false),
    uploadUrl: address('UPLOAD_URL', d.uploadUrl),
  };
}

/** What Express's `trust proxy` accepts: a boolean, a hop count, or addresses, subnets and preset names. */
export type TrustProxy = boolean | number | string[];

const TRUST_PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(entry: string): boolean {
  const slash = entry.indexOf('/');
  const ip = slash === -1 ? entry : entry.slice(0, slash);
  const family = isIP(ip);
  if (family === 0) return false;
  if (slash === -1) return true;
  const range = entry.slice(slash + 1);
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4; // IPv4 netmask form, 10.0.0.0/255.0.0.0
}

/** `TRUST_PROXY`: `true`/`false`, a hop count, or a comma-separated list of addresses, subnets and presets. */
function trustProxy(env: Env, name: string, fallback: string): TrustProxy {
  const raw = str(env, name, fallback);
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 100) throw new ConfigError(`${name} must be at most 100 hops, got "${raw}"`);
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.find((e) => !TRUST_PRESETS.has(e) && !isAddressOrSubnet(e));
  if (entries.length === 0 || bad !== undefined) {
    throw new ConfigError(`${name} must be true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal, got "${bad ?? raw}"`);
  }
  return entries;
}

function timezone(env: Env, name: string, fallback: string): string {
  const zone = str(env, name, fallback);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`${name} must be an IANA timezone such as America/New_York, got "${zone}"`);
  }
  return zone;
}

/** Every setting that holds a secret; in production no two of them may have the same value. */
const SECRET_VARIABLES = [
  'JWT_SECRET',
  'TOKEN_ENCRYPTION_KEY',
  'MEDIA_SIGNING_KEY',
  'ADMIN_PASSWORD',
  'S3_SECRET_ACCESS_KEY',
  'EMBEDDING_API_KEY',
  'REPLICATE_API_TOKEN',
  'OPENAI_API_KEY',
  'METRICS_TOKEN',
  ...PUBLISH_PLATFORMS.map((p) => `${p.toUpperCase()}_CLIENT_SECRET`),
];

/** One leaked value must not open two doors: a key reused as another key, password or provider token is refused. */
function refuseSharedSecrets(env: Env): void {
  const seen = new Map<string, string>();
  for (const name of SECRET_VARIABLES) {
    const value = optional(env, name);
    if (value === undefined) continue;
    const first = seen.get(value);
    if (first !== undefined) throw new ConfigError(`${first} and ${name} must not be equal: give each secret its own value`);
    seen.set(value, name);
  }
}

/**
 * A running job's queue lock and the stalled-job check: a worker that dies holds its jobs until
 * its lock lapses (`lockMs`, renewed every half of it) and a live worker's check (every
 * `stalledCheckMs`; a job is put back at the second check that finds it unlocked, and Bull may
 * skip a tick) puts them back, so a dead worker's job runs again within lockMs + 2 × stalledCheckMs. `sweepIntervalMs`: how often open rows without a queue message (lost in
 * Redis) are re-sent, and how old they must be.
 */
/** Password reset and change (docs/accounts-passwords.md). */
export interface PasswordSettings {
  /** `PASSWORD_RESET_TTL_MINUTES`: how long a mailed reset link works (fractions allowed, for tests). */
  resetTtlMinutes: number;
  /** `PASSWORD_FORGOT_PER_EMAIL_PER_HOUR`: reset requests per address in an hour. */
  forgotPerEmailPerHour: number;
  /** `PASSWORD_FORGOT_PER_IP_PER_HOUR`: reset requests per client address in an hour. */
  forgotPerIpPerHour: number;
  /** `PASSWORD_RESET_FAILURES_PER_IP`: wrong reset tokens per client address in 15 minutes. */
  resetFailuresPerIp: number;
  /** `PASSWORD_CHANGE_FAILURES_PER_USER`: wrong current passwords per user in 15 minutes. */
  changeFailuresPerUser: number;
}

function passwordSettings(env: Env): PasswordSettings {
  const ttl = optional(env, 'PASSWORD_RESET_TTL_MINUTES');
  if (ttl !== undefined && (!/^\d+(\.\d+)?$/.test(ttl) || !(Number(ttl) > 0) || Number(ttl) > 24 * 60)) {
    throw new ConfigError(`PASSWORD_RESET_TTL_MINUTES must be a number of minutes above 0 and at most 1440, got "${ttl}"`);
  }
  return {
    resetTtlMinutes: ttl === undefined ? 30 : Number(ttl),
    forgotPerEmailPerHour: int(env, 'PASSWORD_FORGOT_PER_EMAIL_PER_HOUR', 5, 1, 10_000),
    forgotPerIpPerHour: int(env, 'PASSWORD_FORGOT_PER_IP_PER_HOUR', 20, 1, 100_000),
    resetFailuresPerIp: int(env, 'PASSWORD_RESET_FAILURES_PER_IP', 10, 1, 100_000),
    changeFailuresPerUser: int(env, 'PASSWORD_CHANGE_FAILURES_PER_USER', 5, 1, 10_000),
  };
}

export interface JobRecoverySettings {
  readonly lockMs: number;
  readonly stalledCheckMs: number;
  readonly sweepIntervalMs: number;
}

function jobRecoverySettings(env: Env): JobRecoverySettings {
  const lockMs = int(env, 'JOB_LOCK_MS', 6_000, 2_000, 600_000);
  return {
    lockMs,
    stalledCheckMs: int(env, 'JOB_STALLED_CHECK_MS', Math.max(1_000, Math.floor(lockMs / 3)), 1_000, 600_000),
    sweepIntervalMs: int(env, 'JOB_SWEEP_INTERVAL_MS', 5_000, 1_000, 600_000),
  };
}

/**
 * The outbox dispatcher (docs/mail.md): how often it looks for due events, how many it claims at
 * once, the lease a claim holds, and the back-off of a failed delivery (base × 2^(attempt-1), capped,
 * given up after `maxAttempts`). `dispatchInApi`: API processes dispatch too (workers always do).
 */
export interface OutboxSettings {
  readonly dispatchInApi: boolean;
  readonly pollMs: number;
  readonly batch: number;
  readonly leaseMs: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly maxAttempts: number;
}

function outboxSettings(env: Env): OutboxSettings {
  return {
    dispatchInApi: bool(env, 'OUTBOX_DISPATCH_IN_API', true),
    pollMs: int(env, 'OUTBOX_POLL_MS', 250, 20, 60_000),
    batch: int(env, 'OUTBOX_BATCH', 20, 1, 500),
    leaseMs: int(env, 'OUTBOX_LEASE_MS', 120_000, 5_000, 3_600_000),
    retryBaseMs: int(env, 'OUTBOX_RETRY_BASE_MS', 2_000, 10, 600_000),
    retryMaxMs: int(env, 'OUTBOX_RETRY_MAX_MS', 600_000, 10, 86_400_000),
    maxAttempts: int(env, 'OUTBOX_MAX_ATTEMPTS', 12, 1, 100),
  };
}

/** The one typed, validated configuration. Nothing else reads process.env. */
export class AppConfig {
  readonly nodeEnv: string;
  readonly production: boolean;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly dbPoolSize: number;
  readonly migrationsRun: boolean;
  readonly redisUrl?: string;
  readonly redisPrefix: string;
  /** Whether this process consumes queued jobs: always without Redis; with Redis only workers do unless asked. */
  readonly runJobsInApi: boolean;
  /** Jobs one consuming process runs at once. */
  readonly jobConcurrency: number;
  /** How a dead worker's jobs are noticed and how lost messages are re-sent (see docs/faults-jobs.md). */
  readonly jobRecovery: JobRecoverySettings;
  readonly jwtSecret: string;
  readonly jwtIssuer: string;
  readonly jwtAudience: string;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlDays: number;
  /** Life of the single-use token between a password and a second-factor code (POST /auth/mfa/verify). */
  readonly mfaTokenTtlSeconds: number;
  readonly tokenEncryptionKey: string;
  /** HMAC key of signed media URLs. */
  readonly mediaSigningKey: string;
  /** Life of the signed media URLs in API answers. */
  readonly mediaUrlTtlSeconds: number;
  readonly appUrl: string;
  readonly publicUrl: string;
  readonly corsOrigins: string[];
  /** Express's `trust proxy`: whose X-Forwarded-For is believed for the client address. */
  readonly trustProxy: TrustProxy;
  /** Serve the Swagger UI and OpenAPI JSON (`/api/docs`, `/api/docs-json`). */
  readonly apiDocsEnabled: boolean;
  readonly storageDriver: StorageDriver;
  readonly storageDir: string;
  readonly s3?: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; publicBaseUrl?: string };
  readonly adminEmail?: string;
  readonly adminPassword?: string;
  readonly rateLimitWindowSeconds: number;
  readonly authRateLimitPerMinute: number;
  /** `OPEN_RATE_LIMIT_PER_MINUTE`: requests per client address to open file and webhook routes (media, logos, webhooks). */
  readonly openRateLimitPerMinute: number;
  /** Scales every plan's request limit; for load tests and staging, 1 in production. */
  readonly rateLimitMultiplier: number;
  /** The longest an open socket goes without its credential being checked again (contract §7: 30 s at most). */
  readonly socketRecheckSeconds: number;
  /**
   * The bound on a stop (SIGTERM/SIGINT): in-flight requests and running jobs get this long, less a
   * reserve for closing connections; past it the process exits 1. Orchestrators must wait longer.
   */
  readonly shutdownTimeoutSeconds: number;
  readonly embeddingUrl?: string;
  readonly embeddingApiKey?: string;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** `INVITATION_TTL_HOURS`: how long a workspace invitation can be accepted (fractions allowed, for tests). */
  readonly invitationTtlHours: number;
  readonly passwords: PasswordSettings;
  readonly prices: CreditPrices;
  readonly providers: ProviderSettings;
  readonly lora: LoraSettings;
  readonly voice: VoiceProviderSettings;
  readonly talkingHead: TalkingHeadSettings;
  readonly selfHosted: SelfHostedSettings;
  /** `METRICS_TOKEN`: the bearer a Prometheus scraper sends to `/api/v1/metrics`; unset, the route answers 404. */
  readonly metricsToken?: string;
  /**
   * Hosts that user-supplied URLs may reach although they resolve to private or loopback
   * addresses. Refused in production; tests list their loopback fakes here.
   */
  readonly outboundAllowHosts: string[];
  /** `FFMPEG_PATH` / `FFPROBE_PATH`: the media tools to run; unset, the system's when a release ≥ 6, else the bundled ones. */
  readonly mediaTools: { ffmpegPath?: string; ffprobePath?: string };
  readonly publishing: PublishingSettings;
  readonly analytics: AnalyticsSettings;
  readonly domains: DomainSettings;
  readonly outbox: OutboxSettings;
  /** Transactional mail (the notifications context's own settings). */
  readonly notifications: NotificationsSettings;
  /** Payments and allocations (the billing context's own settings). */
  readonly billing: BillingSettings;
  /** Outbound webhooks (the webhooks context's own settings). */
  readonly webhooks: WebhooksSettings;
  /** Comment and DM responder (the engagement context's own settings). */
  readonly engagement: EngagementSettings;
  /** Affiliate links, click counting and revenue (the monetization context's own settings). */
  readonly monetization: MonetizationSettings;
  readonly dataRights: DataRightsSettings;

  constructor(env: Env = {}) {
    this.nodeEnv = str(env, 'NODE_ENV', 'development');
    this.production = this.nodeEnv === 'production';
    this.host = str(env, 'HOST', '0.0.0.0');
    this.port = int(env, 'PORT', 3000, 0, 65535);
    this.dataDir = resolve(str(env, 'DATA_DIR', './data'));
    this.databaseUrl = url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
    if (this.production && this.databaseUrl === undefined) {
      throw new ConfigError('DATABASE_URL is required when NODE_ENV=production (the embedded PGlite database is for development only)');
    }
    this.dbPoolSize = int(env, 'DB_POOL_SIZE', 10, 1, 200);
    this.migrationsRun = bool(env, 'MIGRATIONS_RUN', true);
    this.redisUrl = url(env, 'REDIS_URL', undefined, ['redis:', 'rediss:']);
    this.redisPrefix = str(env, 'REDIS_PREFIX', 'ps');
    this.runJobsInApi = this.redisUrl === undefined ? true : bool(env, 'RUN_JOBS_IN_API', false);
    this.jobConcurrency = int(env, 'JOB_CONCURRENCY', 4, 1, 64);
    this.jobRecovery = jobRecoverySettings(env);
    this.jwtSecret = secret(env, 'JWT_SECRET', this.production, this.dataDir, 32);
    this.jwtIssuer = str(env, 'JWT_ISSUER', 'persona-studio');
    this.jwtAudience = str(env, 'JWT_AUDIENCE', 'persona-studio-api');
    this.accessTokenTtlSeconds = int(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86400);
    this.refreshTokenTtlDays = int(env, 'REFRESH_TOKEN_TTL_DAYS', 30, 1, 365);
    this.mfaTokenTtlSeconds = int(env, 'MFA_TOKEN_TTL_SECONDS', 300, 1, 900);
    this.tokenEncryptionKey = secret(env, 'TOKEN_ENCRYPTION_KEY', this.production, this.dataDir, 32);
    this.mediaSigningKey = mediaSigningKey(env, this.jwtSecret, this.tokenEncryptionKey, this.production);
    this.mediaUrlTtlSeconds = int(env, 'MEDIA_URL_TTL_SECONDS', 3600, 60, 7 * 24 * 3600);
    this.publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${this.port}`, ['http:', 'https:'])!;
    this.appUrl = url(env, 'APP_URL', 'http://localhost:5173', ['http:', 'https:'])!;
    this.corsOrigins = str(env, 'CORS_ORIGINS', this.appUrl).split(',').map((o) => o.trim()).filter(Boolean);
    // Off unless set: a forwarded client address is believed only behind a proxy the operator names.
    this.trustProxy = trustProxy(env, 'TRUST_PROXY', 'false');
    this.apiDocsEnabled = bool(env, 'API_DOCS_ENABLED', true);
    this.storageDriver = oneOf(env, 'STORAGE_DRIVER', 'local', ['local', 's3'] as const);
    this.storageDir = resolve(str(env, 'STORAGE_DIR', join(this.dataDir, 'uploads')));
    if (this.storageDriver === 's3') {
      const need = (n: string): string => {
        const v = optional(env, n);
        if (!v) throw new ConfigError(`${n} is required when STORAGE_DRIVER=s3`);
        return v;
      };
      this.s3 = {
        endpoint: url(env, 'S3_ENDPOINT', undefined, ['http:', 'https:']) ?? need('S3_ENDPOINT'),
        bucket: need('S3_BUCKET'),
        region: str(env, 'S3_REGION', 'us-east-1'),
        accessKeyId: need('S3_ACCESS_KEY_ID'),
        secretAccessKey: need('S3_SECRET_ACCESS_KEY'),
        publicBaseUrl: url(env, 'S3_PUBLIC_BASE_URL', undefined, ['http:', 'https:']),
      };
    }
    this.adminEmail = optional(env, 'ADMIN_EMAIL')?.toLowerCase();
    this.adminPassword = optional(env, 'ADMIN_PASSWORD');
    if ((this.adminEmail === undefined) !== (this.adminPassword === undefined)) {
      throw new ConfigError('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
    }
    if (this.adminPassword !== undefined && this.adminPassword.length < 8) {
      throw new ConfigError('ADMIN_PASSWORD must be at least 8 characters');
    }
    this.rateLimitWindowSeconds = int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600);
    this.authRateLimitPerMinute = int(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 20, 1, 100000);
    this.openRateLimitPerMinute = int(env, 'OPEN_RATE_LIMIT_PER_MINUTE', 600, 1, 100_000_000);
    this.rateLimitMultiplier = int(env, 'RATE_LIMIT_MULTIPLIER', 1, 1, 100000);
    this.socketRecheckSeconds = int(env, 'SOCKET_RECHECK_SECONDS', 30, 1, 30);
    this.shutdownTimeoutSeconds = int(env, 'SHUTDOWN_TIMEOUT_SECONDS', 25, 1, 600);
    this.embeddingUrl = url(env, 'EMBEDDING_URL', undefined, ['http:', 'https:']);
    this.embeddingApiKey = optional(env, 'EMBEDDING_API_KEY');
    this.logLevel = oneOf(env, 'LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error', 'silent'] as const);
    this.invitationTtlHours = positiveHours(env, 'INVITATION_TTL_HOURS', 7 * 24, 30 * 24);
    this.passwords = passwordSettings(env);
    const price = (name: string, fallback: number) => int(env, `PRICE_${name}`, fallback, 0, 1_000_000);
    this.prices = {
      imagePerImage: price('IMAGE', 3),
      captionVariants: price('CAPTION_VARIANTS', 1),
      weekPlanPerItem: price('WEEK_PLAN_ITEM', 1),
      videoPerSecond: price('VIDEO_SECOND', 1),
      talkingHeadPreview: price('TALKING_HEAD_PREVIEW', 2),
      talkingHeadPerSecond: price('TALKING_HEAD_SECOND', 1),
      talkingHeadMinSeconds: price('TALKING_HEAD_MIN_SECONDS', 5),
      motionTransferPerFiveSeconds: price('MOTION_TRANSFER_5S', 10),
      voiceClone: price('VOICE_CLONE', 50),
      voicePreview: price('VOICE_PREVIEW', 1),
      voicePer100Chars: price('VOICE_100_CHARS', 1),
      lora: price('LORA', 500),
    };
    this.providers = {
      media: oneOf(env, 'MEDIA_PROVIDER', 'local', ['local', 'replicate'] as const),
      replicateUrl: url(env, 'REPLICATE_API_URL', 'https://api.replicate.com', ['http:', 'https:'])!,
      replicateToken: optional(env, 'REPLICATE_API_TOKEN'),
      replicateImageModel: str(env, 'REPLICATE_IMAGE_MODEL', 'black-forest-labs/flux-dev'),
      replicateVideoModel: str(env, 'REPLICATE_VIDEO_MODEL', 'minimax/video-01'),
      replicateMotionModel: str(env, 'REPLICATE_MOTION_MODEL', 'kwaivgi/kling-v1.6-pro'),
      text: oneOf(env, 'TEXT_PROVIDER', 'local', ['local', 'openai'] as const),
      openaiUrl: url(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1', ['http:', 'https:'])!,
      openaiKey: optional(env, 'OPENAI_API_KEY'),
      openaiModel: str(env, 'OPENAI_MODEL', 'gpt-4o-mini'),
      timeoutMs: int(env, 'PROVIDER_TIMEOUT_MS', 120_000, 100, 3_600_000),
      maxDownloadBytes: int(env, 'PROVIDER_MAX_DOWNLOAD_BYTES', 200 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    };
    if (this.providers.media === 'replicate' && !this.providers.replicateToken) {
      throw new ConfigError('REPLICATE_API_TOKEN is required when MEDIA_PROVIDER=replicate');
    }
    if (this.providers.text === 'openai' && !this.providers.openaiKey) {
      throw new ConfigError('OPENAI_API_KEY is required when TEXT_PROVIDER=openai');
    }
    this.lora = {
      provider: oneOf(env, 'LORA_PROVIDER', this.providers.media, ['local', 'replicate'] as const),
      trainers: {
        'flux-dev': str(env, 'REPLICATE_LORA_TRAINER_FLUX_DEV', 'ostris/flux-dev-lora-trainer'),
        sdxl: str(env, 'REPLICATE_LORA_TRAINER_SDXL', 'stability-ai/sdxl:39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b'),
      },
      imageModels: {
        'flux-dev': str(env, 'REPLICATE_LORA_IMAGE_MODEL_FLUX_DEV', 'black-forest-labs/flux-dev-lora'),
        sdxl: str(env, 'REPLICATE_LORA_IMAGE_MODEL_SDXL', 'stability-ai/sdxl:39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b'),
      },
      destinationOwner: optional(env, 'REPLICATE_LORA_OWNER'),
      webhookSecret: optional(env, 'REPLICATE_WEBHOOK_SECRET'),
      webhookUrl: bool(env, 'LORA_WEBHOOKS', true)
        ? (url(env, 'LORA_WEBHOOK_URL', `${this.publicUrl}/api/v1/webhooks/replicate/trainings`, ['http:', 'https:'], false) ?? null)
        : null,
      pollIntervalMs: int(env, 'LORA_POLL_INTERVAL_MS', 30_000, 10, 3_600_000),
      checkIntervalMs: int(env, 'LORA_CHECK_INTERVAL_MS', 1_000, 10, 60_000),
      timeoutMs: int(env, 'LORA_TRAINING_TIMEOUT_MS', 3 * 3_600_000, 1_000, 48 * 3_600_000),
      scale: int(env, 'LORA_SCALE_PERCENT', 100, 0, 300) / 100,
    };
    if (this.lora.provider === 'replicate' && !this.providers.replicateToken) {
      throw new ConfigError('REPLICATE_API_TOKEN is required when LORA_PROVIDER=replicate');
    }
    this.voice = {
      provider: oneOf(env, 'VOICE_PROVIDER', 'local', ['local', 'elevenlabs'] as const),
      elevenlabsUrl: url(env, 'ELEVENLABS_API_URL', 'https://api.elevenlabs.io', ['http:', 'https:'])!,
      elevenlabsKey: optional(env, 'ELEVENLABS_API_KEY'),
      defaultModelId: str(env, 'ELEVENLABS_MODEL_ID', 'eleven_multilingual_v2'),
      concurrency: int(env, 'ELEVENLABS_CONCURRENCY', 4, 1, 100),
      timeoutMs: int(env, 'VOICE_TIMEOUT_MS', 120_000, 100, 3_600_000),
    };
    if (this.voice.provider === 'elevenlabs' && !this.voice.elevenlabsKey) throw new ConfigError('ELEVENLABS_API_KEY is required when VOICE_PROVIDER=elevenlabs');
    this.talkingHead = {
      provider: oneOf(env, 'TALKING_HEAD_PROVIDER', 'local', ['local', 'd-id'] as const),
      didUrl: url(env, 'DID_API_URL', 'https://api.d-id.com', ['http:', 'https:'])!,
      didKey: optional(env, 'DID_API_KEY'),
      timeoutMs: int(env, 'TALKING_HEAD_TIMEOUT_MS', 600_000, 100, 3_600_000),
    };
    if (this.talkingHead.provider === 'd-id' && !this.talkingHead.didKey) throw new ConfigError('DID_API_KEY is required when TALKING_HEAD_PROVIDER=d-id');
    this.selfHosted = {
      budgetMs: int(env, 'SELFHOSTED_BUDGET_MS', 90_000, 100, 600_000),
      retries: int(env, 'SELFHOSTED_RETRIES', 2, 0, 10),
      healthTtlMs: int(env, 'SELFHOSTED_HEALTH_TTL_MS', 30_000, 100, 3_600_000),
      circuitThreshold: int(env, 'SELFHOSTED_CIRCUIT_THRESHOLD', 3, 1, 100),
      circuitResetMs: int(env, 'SELFHOSTED_CIRCUIT_RESET_MS', 300_000, 100, 86_400_000),
      leaseMs: int(env, 'SELFHOSTED_LEASE_MS', 30_000, 500, 600_000),
      healthIntervalMs: int(env, 'SELFHOSTED_HEALTH_INTERVAL_MS', 30_000, 0, 3_600_000),
      probeTimeoutMs: int(env, 'SELFHOSTED_PROBE_TIMEOUT_MS', 5_000, 100, 60_000),
    };
    this.metricsToken = optional(env, 'METRICS_TOKEN');
    if (this.metricsToken !== undefined && this.metricsToken.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
    this.publishing = {
      platforms: Object.fromEntries(PUBLISH_PLATFORMS.map((p) => [p, platformCredentials(env, p)])) as Record<PublishPlatform, PlatformCredentials | undefined>,
      timeoutMs: int(env, 'PUBLISH_TIMEOUT_MS', 30_000, 100, 600_000),
      pollIntervalMs: int(env, 'PUBLISH_POLL_INTERVAL_MS', 2_000, 1, 60_000),
      pollTimeoutMs: int(env, 'PUBLISH_POLL_TIMEOUT_MS', 120_000, 10, 3_600_000),
      leaseSeconds: int(env, 'PUBLISH_LEASE_SECONDS', 40, 1, 86_400),
      dispatchIntervalMs: int(env, 'PUBLISH_DISPATCH_INTERVAL_MS', 250, 10, 60_000),
      dispatchBatch: int(env, 'PUBLISH_DISPATCH_BATCH', 100, 1, 1000),
      concurrency: int(env, 'PUBLISH_CONCURRENCY', 16, 1, 256),
      defaultTimezone: timezone(env, 'DEFAULT_TIMEZONE', 'America/New_York'),
    };
    this.analytics = {
      syncIntervalMs: int(env, 'ANALYTICS_SYNC_INTERVAL_MS', 6 * 3_600_000, 1_000, 7 * 86_400_000),
      schedulerTickMs: int(env, 'ANALYTICS_SCHEDULER_TICK_MS', 30_000, 50, 3_600_000),
    };
    this.dataRights = dataRightsSettings(env);
    this.domains = {
      resolverServers: dnsServers(env, 'DNS_RESOLVER_SERVERS'),
      lookupTimeoutMs: int(env, 'DNS_LOOKUP_TIMEOUT_MS', 5_000, 50, 60_000),
      pendingCheckMs: int(env, 'DOMAIN_CHECK_INTERVAL_MS', 5 * 60_000, 50, 86_400_000),
      verifiedCheckMs: int(env, 'DOMAIN_RECHECK_INTERVAL_MS', 12 * 3_600_000, 50, 7 * 86_400_000),
      pendingTtlMs: positiveHours(env, 'DOMAIN_PENDING_TTL_HOURS', 72, 30 * 24) * 3_600_000,
      missesBeforeFailed: int(env, 'DOMAIN_MISSES_BEFORE_FAILED', 3, 1, 100),
      schedulerTickMs: int(env, 'DOMAIN_SCHEDULER_TICK_MS', 60_000, 50, 3_600_000),
    };
    this.outboundAllowHosts = str(env, 'OUTBOUND_ALLOW_HOSTS', '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
    if (this.production && this.outboundAllowHosts.length > 0) {
      throw new ConfigError('OUTBOUND_ALLOW_HOSTS must be empty when NODE_ENV=production: it lets user-supplied URLs reach private addresses (tests only)');
    }
    this.outbox = outboxSettings(env);
    try {
      this.notifications = parseNotificationsSettings(env);
      this.billing = parseBillingSettings(env);
      this.webhooks = parseWebhooksSettings(env);
      this.engagement = parseEngagementSettings(env);
      this.monetization = parseMonetizationSettings(env);
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
    this.mediaTools = { ffmpegPath: optional(env, 'FFMPEG_PATH'), ffprobePath: optional(env, 'FFPROBE_PATH') };
    if (this.production) refuseSharedSecrets(env);
  }

  /** Reads the process environment; the only place that does. */
  static fromProcessEnv(): AppConfig {
    return new AppConfig(process.env);
  }
}
