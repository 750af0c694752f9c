import { createHash, createHmac } from 'node:crypto';

/** AWS Signature Version 4 (header form), as S3-compatible stores expect. No SDK. */
export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
}

export interface SigV4Request {
  method: string;
  url: URL;
  /** Every header to sign; must include `host` and `x-amz-date`. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body (or `UNSIGNED-PAYLOAD`). */
  payloadHash: string;
}

export const EMPTY_PAYLOAD_HASH = createHash('sha256').update('').digest('hex');

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** `20130524T000000Z` */
export function amzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(url: URL): string {
  const pairs = [...url.searchParams.entries()].map(([k, v]) => [encodeRfc3986(k), encodeRfc3986(v)]);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function canonicalHeaders(headers: Record<string, string>): { canonical: string; signed: string } {
  const entries = Object.entries(headers)
    .map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    canonical: entries.map(([k, v]) => `${k}:${v}\n`).join(''),
    signed: entries.map(([k]) => k).join(';'),
  };
}

export function canonicalRequest(req: SigV4Request): { text: string; signedHeaders: string } {
  const { canonical, signed } = canonicalHeaders(req.headers);
  // The URL's pathname is already percent-encoded once; S3 wants it exactly so (no double encoding).
  const text = [req.method.toUpperCase(), req.url.pathname || '/', canonicalQuery(req.url), canonical, signed, req.payloadHash].join('\n');
  return { text, signedHeaders: signed };
}

/** The `Authorization` header value for a request. `date` must match the `x-amz-date` header. */
export function signV4(req: SigV4Request, creds: SigV4Credentials, date: Date): string {
  const stamp = amzDate(date);
  const day = stamp.slice(0, 8);
  const scope = `${day}/${creds.region}/${creds.service}/aws4_request`;
  const { text, signedHeaders } = canonicalRequest(req);
  const stringToSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256Hex(text)].join('\n');
  const kDate = hmac(`AWS4${creds.secretAccessKey}`, day);
  const kSigning = hmac(hmac(hmac(kDate, creds.region), creds.service), 'aws4_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/**
 * A presigned URL (query-string SigV4, `UNSIGNED-PAYLOAD`): whoever holds it may send `method` to
 * `url` until `expiresSeconds` after `date`. `url` may carry extra query parameters (S3's
 * `response-*` overrides); they are signed with the rest. The query is written RFC 3986-encoded
 * (a space as `%20`, never `+`), exactly as it was signed.
 */
export function presignV4(method: string, url: URL, creds: SigV4Credentials, date: Date, expiresSeconds: number): string {
  const stamp = amzDate(date);
  const day = stamp.slice(0, 8);
  const scope = `${day}/${creds.region}/${creds.service}/aws4_request`;
  const signed = new URL(url);
  signed.searchParams.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA256');
  signed.searchParams.set('X-Amz-Credential', `${creds.accessKeyId}/${scope}`);
  signed.searchParams.set('X-Amz-Date', stamp);
  signed.searchParams.set('X-Amz-Expires', String(expiresSeconds));
  signed.searchParams.set('X-Amz-SignedHeaders', 'host');
  const { text } = canonicalRequest({ method, url: signed, headers: { host: signed.host }, payloadHash: 'UNSIGNED-PAYLOAD' });
  const stringToSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256Hex(text)].join('\n');
  const kDate = hmac(`AWS4${creds.secretAccessKey}`, day);
  const kSigning = hmac(hmac(hmac(kDate, creds.region), creds.service), 'aws4_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
  return `${signed.origin}${signed.pathname}?${canonicalQuery(signed)}&X-Amz-Signature=${signature}`;
}
