import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body.js';
import { verifyHeaderSigned, verifyPresigned } from './sigv4-verifier.js';

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
 * every request's SigV4 signature and payload hash, as a real store would, with its own verifier
 * (sigv4-verifier.ts), never the product's signing code.
 */
export async function startFakeS3(opts: { bucket?: string; region?: string } = {}): Promise<FakeS3> {
  const bucket = opts.bucket ?? 'media-bucket';
  const region = opts.region ?? 'eu-west-1';
  const accessKeyId = 'FAKEACCESSKEY';
  const secretAccessKey = 'fake/secret/key/0123456789';
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: FakeS3['requests'] = [];

  const creds = { accessKeyId, secretAccessKey, region, service: 's3' };

  /** Checked as S3 would, by an implementation of SigV4 that shares nothing with the product's signer. */
  const verify = (req: IncomingMessage, body: Buffer): string | null => {
    const arrived = { method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers };
    if (new URL(arrived.target, 'http://x').searchParams.has('X-Amz-Signature')) return req.method === 'GET' ? verifyPresigned(arrived, creds) : 'AccessDenied';
    return verifyHeaderSigned(arrived, body, creds);
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
