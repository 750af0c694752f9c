import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { presignV4, sha256Hex, signV4 } from '../../src/platform/storage/sigv4.js';
import { readBody } from './read-body.js';

export interface FakeS3 {
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  requests: Array<{ method: string; path: string; status: number }>;
  close(): Promise<void>;
}

function xmlError(code: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`;
}

/**
 * An S3-compatible object store on 127.0.0.1 that speaks path-style PUT/GET/DELETE and checks
 * every request's SigV4 signature and payload hash, as a real store would.
 */
export async function startFakeS3(opts: { bucket?: string; region?: string } = {}): Promise<FakeS3> {
  const bucket = opts.bucket ?? 'media-bucket';
  const region = opts.region ?? 'eu-west-1';
  const accessKeyId = 'FAKEACCESSKEY';
  const secretAccessKey = 'fake/secret/key/0123456789';
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: FakeS3['requests'] = [];

  const parseStamp = (stamp: string): Date =>
    new Date(`${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`);

  /** A presigned GET (query-string SigV4): recomputed from everything but its signature, and refused once expired. */
  const verifyPresigned = (req: IncomingMessage, url: URL): string | null => {
    const given = url.searchParams.get('X-Amz-Signature') ?? '';
    const [keyId, , scopeRegion] = (url.searchParams.get('X-Amz-Credential') ?? '').split('/');
    if (keyId !== accessKeyId || scopeRegion !== region) return 'InvalidAccessKeyId';
    const date = parseStamp(url.searchParams.get('X-Amz-Date') ?? '');
    const expires = Number(url.searchParams.get('X-Amz-Expires'));
    if (Number.isNaN(date.getTime()) || !Number.isInteger(expires) || expires < 1 || expires > 604800) return 'AuthorizationQueryParametersError';
    if (Date.now() > date.getTime() + expires * 1000) return 'AccessDenied';
    const unsigned = new URL(url);
    for (const name of ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature']) unsigned.searchParams.delete(name);
    const expected = new URL(presignV4(req.method ?? 'GET', unsigned, { accessKeyId, secretAccessKey, region, service: 's3' }, date, expires));
    return expected.searchParams.get('X-Amz-Signature') === given ? null : 'SignatureDoesNotMatch';
  };

  const verify = (req: IncomingMessage, body: Buffer): string | null => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.searchParams.has('X-Amz-Signature')) return req.method === 'GET' ? verifyPresigned(req, url) : 'AccessDenied';
    const auth = req.headers.authorization ?? '';
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m || m[1] !== accessKeyId || m[3] !== region) return 'InvalidAccessKeyId';
    const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    if (payloadHash !== sha256Hex(body)) return 'XAmzContentSHA256Mismatch';
    const date = parseStamp(String(req.headers['x-amz-date'] ?? ''));
    if (Number.isNaN(date.getTime()) || Math.abs(Date.now() - date.getTime()) > 15 * 60_000) return 'RequestTimeTooSkewed';
    const headers: Record<string, string> = {};
    for (const name of m[4].split(';')) headers[name] = String(req.headers[name] ?? '');
    const expected = signV4(
      { method: req.method ?? 'GET', url: new URL(req.url ?? '/', `http://${req.headers.host}`), headers, payloadHash },
      { accessKeyId, secretAccessKey, region, service: 's3' },
      date,
    );
    return expected === auth.replace(/, ?SignedHeaders/, ', SignedHeaders').replace(/, ?Signature/, ', Signature') ? null : 'SignatureDoesNotMatch';
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const requested = new URL(req.url ?? '/', 'http://x');
      const path = decodeURIComponent(requested.pathname);
      // S3 answers a presigned GET's `response-cache-control` override as the Cache-Control header.
      const cacheControl = requested.searchParams.get('response-cache-control');
      const send = (status: number, payload?: Buffer | string, type = 'application/xml') => {
        requests.push({ method: req.method ?? '', path, status });
        const headers: Record<string, string | number> = payload === undefined ? {} : { 'Content-Type': type, 'Content-Length': Buffer.byteLength(payload) };
        if (status === 200 && cacheControl) headers['Cache-Control'] = cacheControl;
        res.writeHead(status, headers);
        res.end(payload);
      };
      const problem = verify(req, body);
      if (problem) return send(403, xmlError(problem));
      if (!path.startsWith(`/${bucket}/`)) return send(404, xmlError('NoSuchBucket'));
      const key = path.slice(bucket.length + 2);
      if (req.method === 'PUT') {
        objects.set(key, { body, contentType: String(req.headers['content-type'] ?? 'application/octet-stream') });
        return send(200, '');
      }
      const found = objects.get(key);
      if (req.method === 'GET') return found ? send(200, found.body, found.contentType) : send(404, xmlError('NoSuchKey'));
      if (req.method === 'DELETE') {
        objects.delete(key);
        return send(204);
      }
      return send(405, xmlError('MethodNotAllowed'));
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId,
    secretAccessKey,
    region,
    objects,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
