import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake does with one request: answer normally, fail, answer garbage, or never answer. */
export type EmbeddingBehaviour =
  | 'ok'
  | 'malformed'
  | 'wrong_size'
  | 'not_json'
  | 'hang'
  | { status: number; retryAfter?: number };

export interface EmbeddingRequestSeen {
  authorization?: string;
  model?: string;
  imageBytes: number;
  imageSha256: string;
}

export interface FakeEmbeddingServer {
  url: string;
  requests: EmbeddingRequestSeen[];
  /** Behaviours for the next requests, in order; once used up, requests are answered `ok`. */
  script: EmbeddingBehaviour[];
  close(): Promise<void>;
}

/** A deterministic 512-number vector from the image bytes, as a real model would be deterministic. */
export function fakeEmbeddingOf(image: Buffer): number[] {
  const out: number[] = [];
  for (let block = 0; out.length < 512; block++) {
    const digest = createHash('sha256').update(image).update(String(block)).digest();
    for (const byte of digest) out.push(byte / 255 - 0.5);
  }
  return out.slice(0, 512);
}

/** An embedding service on 127.0.0.1: POST `{image: base64, model?}` → `{embedding: number[512]}`. */
export async function startFakeEmbeddingServer(opts: { apiKey?: string } = {}): Promise<FakeEmbeddingServer> {
  const requests: EmbeddingRequestSeen[] = [];
  const script: EmbeddingBehaviour[] = [];
  const hanging = new Set<ServerResponse>();
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed' });
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return json(res, 401, { error: 'bad key' });
      let parsed: { image?: unknown; model?: unknown };
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 400, { error: 'body is not JSON' });
      }
      if (typeof parsed.image !== 'string') return json(res, 400, { error: 'image is required' });
      const image = Buffer.from(parsed.image, 'base64');
      requests.push({
        authorization: req.headers.authorization,
        model: typeof parsed.model === 'string' ? parsed.model : undefined,
        imageBytes: image.length,
        imageSha256: createHash('sha256').update(image).digest('hex'),
      });
      const behaviour = script.shift() ?? 'ok';
      if (behaviour === 'hang') {
        hanging.add(res);
        return;
      }
      if (behaviour === 'malformed') return json(res, 200, { vector: [1, 2, 3] });
      if (behaviour === 'wrong_size') return json(res, 200, { embedding: new Array(511).fill(0.5) });
      if (behaviour === 'not_json') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        return res.end('<html>oops</html>');
      }
      if (typeof behaviour === 'object') {
        return json(res, behaviour.status, { error: 'scripted failure' }, behaviour.retryAfter !== undefined ? { 'Retry-After': String(behaviour.retryAfter) } : {});
      }
      return json(res, 200, { embedding: fakeEmbeddingOf(image) });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embed`,
    requests,
    script,
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
