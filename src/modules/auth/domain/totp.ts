import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 6 digits, 30-second
 * steps, a code accepted one step either side of now (clocks drift), and never for a step at or
 * before the last one accepted, so a code cannot be replayed inside its window.
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
export const TOTP_TOLERANCE_STEPS = 1;
/** RFC 4226 §4 asks for at least 128 bits; 160 (the SHA-1 block output) is what authenticator apps expect. */
export const TOTP_SECRET_BYTES = 20;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, without padding (what otpauth URIs carry). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32, ignoring case, spaces and padding; throws on any other character. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = BASE32.indexOf(ch);
    if (index < 0) throw new Error('Not a base32 string.');
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: the dynamically truncated HMAC of the 8-byte big-endian counter, `digits` long. */
export function hotp(secret: Uint8Array, counter: number, digits: number = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The 30-second step that holds `nowMs` (RFC 6238's T with T0 = 0). */
export function totpStep(nowMs: number, periodSeconds: number = TOTP_PERIOD_SECONDS): number {
  return Math.floor(nowMs / 1000 / periodSeconds);
}

/** The code for the step that holds `nowMs`. */
export function totp(secret: Uint8Array, nowMs: number, digits: number = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  return hotp(secret, totpStep(nowMs), digits, algorithm);
}

/**
 * The step `code` is valid for, within the tolerance around `nowMs` and after `lastUsedStep`, or
 * null. Every candidate step is compared (in constant time), so the answer's timing does not tell
 * which step matched or whether any did.
 */
export function matchTotp(secret: Uint8Array, code: string, nowMs: number, lastUsedStep: number | null): number | null {
  if (!isTotpCodeShape(code)) return null;
  const current = totpStep(nowMs);
  const given = Buffer.from(code);
  let matched: number | null = null;
  for (let step = current - TOTP_TOLERANCE_STEPS; step <= current + TOTP_TOLERANCE_STEPS; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step)), given);
    if (equal && matched === null && (lastUsedStep === null || step > lastUsedStep)) matched = step;
  }
  return matched;
}

export function isTotpCodeShape(code: string): boolean {
  return code.length === TOTP_DIGITS && /^[0-9]+$/.test(code);
}

/** A fresh secret: 20 random bytes, base32. */
export function generateTotpSecret(): string {
  return base32Encode(randomBytes(TOTP_SECRET_BYTES));
}

/** The Key URI an authenticator app scans (Google Authenticator's `otpauth://totp/ISSUER:ACCOUNT?...` format). */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_PERIOD_SECONDS) });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
}

/** Recovery codes handed out when two-factor is enabled; each works once. */
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * Ten codes of ten characters from a 31-letter alphabet without look-alikes (about 49 bits each),
 * shown as `xxxxx-xxxxx`. Random enough that a SHA-256 hash is a safe way to keep them.
 */
export function generateRecoveryCodes(count: number = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) {
    let raw = '';
    // Rejection sampling: 248 is the largest multiple of 31 below 256, so no letter is likelier.
    while (raw.length < 10) {
      for (const byte of randomBytes(16)) if (byte < 248 && raw.length < 10) raw += RECOVERY_ALPHABET[byte % 31];
    }
    codes.add(`${raw.slice(0, 5)}-${raw.slice(5)}`);
  }
  return [...codes];
}

/** A recovery code as typed (any case, with or without the hyphen or spaces) in its stored form. */
export function normalizeRecoveryCode(typed: string): string {
  const raw = typed.toLowerCase().replace(/[\s-]/g, '');
  return raw.length === 10 ? `${raw.slice(0, 5)}-${raw.slice(5)}` : raw;
}

export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(code)).digest('hex');
}
