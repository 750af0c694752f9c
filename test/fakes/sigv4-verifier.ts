import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * AWS Signature Version 4 as a server checks it, written from AWS's specification and kept apart
 * from the product's signer (src/platform/storage/sigv4.ts) on purpose: a fake that verified with
 * the product's own code would accept whatever mistake that code makes. Canonical forms follow
 * S3's rules: the path is decoded once and re-encoded byte by byte (no double encoding, no dot
 * segment removal), `+` is a literal plus, spaces are `%20`. Checked against AWS's published
 * test vectors in sigv4-verifier.spec.ts.
 */

export interface VerifierCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
}

/** One request as it arrived: the request target exactly as sent (path and query, still encoded). */
export interface ArrivedRequest {
  method: string;
  target: string;
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte that is not unreserved, upper-case hex; `/` kept when `keepSlash`. */
export function awsUriEncode(text: string, keepSlash: boolean): string {
  let out = '';
  for (const ch of text) {
    if (UNRESERVED.test(ch) || (keepSlash && ch === '/')) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `%XX` sequences to bytes, nothing else (a `+` stays a plus, as S3 reads a path). */
function percentDecode(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

export function canonicalUri(rawPath: string): string {
  return awsUriEncode(percentDecode(rawPath || '/'), true);
}

/** Sorted by encoded name, then encoded value; `without` names are left out (a presigned URL's signature). */
export function canonicalQueryString(rawQuery: string, without: string[] = []): string {
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((part) => {
      const eq = part.indexOf('=');
      const [name, value] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
      return [percentDecode(name), percentDecode(value)];
    })
    .filter(([name]) => !without.includes(name))
    .map(([name, value]) => [awsUriEncode(name, false), awsUriEncode(value, false)]);
  pairs.sort(([an, av], [bn, bv]) => (an === bn ? compare(av, bv) : compare(an, bn)));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function headerValue(headers: ArrivedRequest['headers'], name: string): string | undefined {
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
  if (!found || found[1] === undefined) return undefined;
  const value = Array.isArray(found[1]) ? found[1].join(',') : found[1];
  return value.trim().replace(/\s+/g, ' ');
}

export function canonicalRequestText(req: ArrivedRequest, signedHeaders: string[], payloadHash: string, dropFromQuery: string[] = []): string | null {
  const q = req.target.indexOf('?');
  const path = q < 0 ? req.target : req.target.slice(0, q);
  const query = q < 0 ? '' : req.target.slice(q + 1);
  const lines: string[] = [];
  for (const name of signedHeaders) {
    const value = headerValue(req.headers, name);
    // A header named as signed but absent cannot be what the client signed.
    if (value === undefined) return null;
    lines.push(`${name}:${value}\n`);
  }
  return [req.method.toUpperCase(), canonicalUri(path), canonicalQueryString(query, dropFromQuery), lines.join(''), signedHeaders.join(';'), payloadHash].join('\n');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The hex signature of a canonical request text at `amzDate` (`20150830T123600Z`). */
export function signatureOf(canonical: string, amzDate: string, creds: VerifierCredentials): string {
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${creds.region}/${creds.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonical)}`;
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), creds.region), creds.service), 'aws4_request');
  return hmac(key, stringToSign).toString('hex');
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** S3's error codes for a refused signature. */
export type SigV4Refusal = 'InvalidAccessKeyId' | 'AuthorizationHeaderMalformed' | 'SignatureDoesNotMatch' | 'RequestTimeTooSkewed' | 'XAmzContentSHA256Mismatch' | 'AccessDenied' | 'AuthorizationQueryParametersError';

/** `20150830T123600Z` as a Date, or null. */
export function parseAmzDate(stamp: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : null;
}

const AUTH_HEADER = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

/**
 * Checks a header-signed request (`Authorization: AWS4-HMAC-SHA256 …`): the credential scope, the
 * date (within 15 minutes of `now`), `host` and `x-amz-date` among the signed headers, the
 * payload hash against the body, and the signature. Null when it holds.
 */
export function verifyHeaderSigned(req: ArrivedRequest, body: Buffer, creds: VerifierCredentials, now = new Date()): SigV4Refusal | null {
  const m = AUTH_HEADER.exec(headerValue(req.headers, 'authorization') ?? '');
  if (!m) return 'AuthorizationHeaderMalformed';
  const [, keyId, day, region, service, signed, given] = m;
  if (keyId !== creds.accessKeyId) return 'InvalidAccessKeyId';
  if (region !== creds.region || service !== creds.service) return 'AuthorizationHeaderMalformed';
  const amzDate = headerValue(req.headers, 'x-amz-date') ?? '';
  const date = parseAmzDate(amzDate);
  if (!date || amzDate.slice(0, 8) !== day) return 'AuthorizationHeaderMalformed';
  if (Math.abs(now.getTime() - date.getTime()) > 15 * 60_000) return 'RequestTimeTooSkewed';
  const names = signed.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date') || names.join(';') !== [...names].sort().join(';')) return 'AuthorizationHeaderMalformed';
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256');
  if (creds.service === 's3' && payloadHash === undefined) return 'AuthorizationHeaderMalformed';
  if (payloadHash !== undefined && payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return 'XAmzContentSHA256Mismatch';
  const canonical = canonicalRequestText(req, names, payloadHash ?? sha256(body));
  if (!canonical) return 'SignatureDoesNotMatch';
  return sameHex(signatureOf(canonical, amzDate, creds), given) ? null : 'SignatureDoesNotMatch';
}

/**
 * Checks a presigned URL (query-string SigV4, `UNSIGNED-PAYLOAD`): its credential scope, a life of
 * 1 s to 7 days not yet over at `now`, and the signature over everything but `X-Amz-Signature`.
 */
export function verifyPresigned(req: ArrivedRequest, creds: VerifierCredentials, now = new Date()): SigV4Refusal | null {
  const query = new URLSearchParams(req.target.slice(req.target.indexOf('?') + 1));
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return 'AuthorizationQueryParametersError';
  const [keyId, day, region, service, terminal] = (query.get('X-Amz-Credential') ?? '').split('/');
  if (keyId !== creds.accessKeyId) return 'InvalidAccessKeyId';
  if (region !== creds.region || service !== creds.service || terminal !== 'aws4_request') return 'AuthorizationQueryParametersError';
  const amzDate = query.get('X-Amz-Date') ?? '';
  const date = parseAmzDate(amzDate);
  const expires = Number(query.get('X-Amz-Expires'));
  if (!date || amzDate.slice(0, 8) !== day || !Number.isInteger(expires) || expires < 1 || expires > 604_800) return 'AuthorizationQueryParametersError';
  if (now.getTime() > date.getTime() + expires * 1000) return 'AccessDenied';
  const names = (query.get('X-Amz-SignedHeaders') ?? '').split(';');
  if (!names.includes('host')) return 'AuthorizationQueryParametersError';
  const canonical = canonicalRequestText(req, names, 'UNSIGNED-PAYLOAD', ['X-Amz-Signature']);
  if (!canonical) return 'SignatureDoesNotMatch';
  return sameHex(signatureOf(canonical, amzDate, creds), query.get('X-Amz-Signature') ?? '') ? null : 'SignatureDoesNotMatch';
}
