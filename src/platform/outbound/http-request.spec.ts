import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpJson, httpRequest } from './http-request.js';
import { OutboundError } from './outbound-error.js';
import { parseRetryAfter, retryDelay } from './retry-policy.js';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

/** A server answering each request with the next scripted step; `ok` once the script is used up. */
let server: Server;
let base: string;
const script: Step[] = [];
const seen: Array<{ method?: string; body: string }> = [];
const hanging: ServerResponse[] = [];

const ok: Step = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ ok: true }));
};
const status =
  (code: number, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(code, headers);
    res.end(`failure ${code}`);
  };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, body: Buffer.concat(chunks).toString('utf8') });
      (script.shift() ?? ok)(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

beforeEach(() => {
  script.length = 0;
  seen.length = 0;
});

/** Records the waits the retry loop asks for instead of waiting them out. */
function recorder() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

describe('httpRequest retry policy', () => {
  it('retries 5xx and succeeds once the server recovers', async () => {
    script.push(status(500), status(503));
    const r = recorder();
    const res = await httpRequest(`${base}/x`, { retries: 2, sleep: r.sleep });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(r.delays).toHaveLength(2);
  });

  it('does not retry a 400, and keeps the start of its body', async () => {
    script.push(status(400));
    const r = recorder();
    const err = await failure(httpRequest(`${base}/x`, { retries: 3, sleep: r.sleep }));
    expect(err).toMatchObject({ kind: 'http', status: 400, retryable: false, attempts: 1, bodySnippet: 'failure 400' });
    expect(seen).toHaveLength(1);
    expect(r.delays).toEqual([]);
  });

  it('waits what Retry-After asks on a 429, capped', async () => {
    script.push(status(429, { 'Retry-After': '2' }), status(429, { 'Retry-After': '120' }));
    const r = recorder();
    await httpRequest(`${base}/x`, { retries: 2, sleep: r.sleep, maxRetryAfterMs: 5_000 });
    expect(r.delays).toEqual([2_000, 5_000]);
  });

  it('gives up after the allowed retries with the last status', async () => {
    script.push(status(502), status(502), status(502));
    const err = await failure(httpRequest(`${base}/x`, { retries: 2, sleep: recorder().sleep }));
    expect(err).toMatchObject({ kind: 'http', status: 502, retryable: true, attempts: 3 });
  });

  it('retries network errors', async () => {
    script.push((req) => req.socket.destroy());
    const r = recorder();
    const res = await httpRequest(`${base}/x`, { retries: 1, sleep: r.sleep });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it('reports a connection refused as a network error after its retries', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await failure(httpRequest(`http://127.0.0.1:${port}/`, { retries: 1, sleep: recorder().sleep }));
    expect(err).toMatchObject({ kind: 'network', attempts: 2 });
  });

  it('times out an attempt that never answers, without retrying it', async () => {
    script.push((_req, res) => void hanging.push(res));
    const err = await failure(httpRequest(`${base}/x`, { timeoutMs: 150, retries: 2, sleep: recorder().sleep }));
    expect(err).toMatchObject({ kind: 'timeout', attempts: 1 });
  });

  it("stops at once when the caller's signal aborts", async () => {
    script.push((_req, res) => void hanging.push(res));
    const controller = new AbortController();
    const pending = httpRequest(`${base}/x`, { signal: controller.signal, timeoutMs: 60_000 });
    await waitFor(() => seen.length === 1);
    controller.abort();
    expect(await failure(pending)).toMatchObject({ kind: 'aborted', retryable: false });
  });
});

describe('httpRequest size cap', () => {
  it('refuses a body whose declared length is over the cap', async () => {
    script.push((_req, res) => {
      res.writeHead(200, { 'Content-Length': '5000' });
      res.end(Buffer.alloc(5000));
    });
    expect(await failure(httpRequest(`${base}/x`, { maxBytes: 1000 }))).toMatchObject({ kind: 'too_large' });
  });

  it('stops reading a chunked body once it passes the cap', async () => {
    script.push((_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(500));
      res.end();
    });
    expect(await failure(httpRequest(`${base}/x`, { maxBytes: 1000 }))).toMatchObject({ kind: 'too_large' });
  });

  it('accepts a body at the cap', async () => {
    script.push((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(1000, 7));
    });
    const res = await httpRequest(`${base}/x`, { maxBytes: 1000 });
    expect(res.body).toEqual(Buffer.alloc(1000, 7));
  });
});

describe('httpJson', () => {
  it('sends and parses JSON', async () => {
    const res = await httpJson<{ ok: boolean }>(`${base}/x`, { method: 'POST', json: { a: 1 } });
    expect(res.data).toEqual({ ok: true });
    expect(seen[0]).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('calls an answer that is not JSON a bad response', async () => {
    script.push((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"half":');
    });
    expect(await failure(httpJson(`${base}/x`))).toMatchObject({ kind: 'bad_response' });
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('backs off exponentially with jitter inside [half, full] of the step, capped', () => {
    const low = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 };
    const high = { ...low, random: () => 1 };
    expect([1, 2, 3, 4, 5].map((a) => retryDelay(a, low))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((a) => retryDelay(a, high))).toEqual([100, 200, 400, 800, 1000]);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setImmediate(r));
  if (!condition()) throw new Error('condition never became true');
}
