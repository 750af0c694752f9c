import http from 'node:http';
import type { Measurement } from './load.js';
import { now } from './socket.js';
import { percentile, sleep } from './stats.js';

/**
 * Open-loop load: requests leave on a clock, whatever happened to the ones before them, so a slow
 * answer cannot hold back the next send and hide its own cost (closed loops, autocannon's included,
 * send less while the server is slow: "coordinated omission"). Latency is timed from the moment a
 * request was due, so a load generator that falls behind shows in the figures, not beside them.
 */

/** One request of an open loop, as it went. */
export interface Sent {
  /** When it was due to leave (`now()` clock, ms); latency counts from here. */
  t0: number;
  answeredAt?: number;
  status?: number;
  /** The answer's job id, for scenarios that follow jobs. */
  jobId?: string;
  error?: string;
}

export interface OpenLoopRun {
  sent: Sent[];
  /** The worst delay of a send behind its clock tick (a busy load generator shows here). */
  maxLag: number;
  seconds: number;
}

/**
 * Sends `count` requests at `rate`/s by the clock. Requests due at the same wake-up leave together,
 * so rates above the timer's 1 ms resolution still keep their average.
 */
export async function openLoop(rate: number, count: number, send: (s: Sent, i: number) => Promise<void>): Promise<OpenLoopRun> {
  const interval = 1000 / rate;
  const sent: Sent[] = [];
  const inflight: Promise<void>[] = [];
  const start = now() + 10;
  let maxLag = 0;
  for (let i = 0; i < count; ) {
    const wait = start + i * interval - now();
    if (wait > 0) await sleep(wait);
    const t = now();
    for (; i < count && start + i * interval <= t; i++) {
      const s: Sent = { t0: start + i * interval };
      maxLag = Math.max(maxLag, t - s.t0);
      sent.push(s);
      inflight.push(send(s, i));
    }
  }
  const seconds = (now() - start) / 1000 + interval / 1000;
  await Promise.all(inflight);
  return { sent, maxLag, seconds };
}

export interface Answers {
  statusCodes: Record<string, number>;
  /** Due → answer, in ms, for every request that got an answer. */
  times: number[];
  /** Requests that got no answer (transport errors). */
  errors: number;
  /** How many of those errors each message names (`read ECONNRESET`, `timed out after 10 s`). */
  errorKinds: Record<string, number>;
  non2xx: number;
}

export function tallyAnswers(sent: Sent[]): Answers {
  const statusCodes: Record<string, number> = {};
  const times: number[] = [];
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  for (const s of sent) {
    if (s.error !== undefined || s.answeredAt === undefined) {
      errors++;
      const kind = s.error ?? 'no answer';
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      continue;
    }
    statusCodes[String(s.status)] = (statusCodes[String(s.status)] ?? 0) + 1;
    times.push(s.answeredAt - s.t0);
  }
  const non2xx = Object.entries(statusCodes).filter(([code]) => !code.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  return { statusCodes, times, errors, errorKinds, non2xx };
}

/** A table row for an open loop: its rate, p50/p99 of `values`, and what the API answered. */
export function openLoopRow(label: string, run: OpenLoopRun, values: number[], answers: Answers, errors = answers.errors): Measurement {
  return {
    label,
    connections: 0,
    durationSeconds: run.seconds,
    requests: run.sent.length,
    rps: run.sent.length / run.seconds,
    p50: Math.round(percentile(values, 50)),
    p99: Math.round(percentile(values, 99)),
    non2xx: answers.non2xx,
    errors,
    errorKinds: answers.errorKinds,
    statusCodes: answers.statusCodes,
  };
}

/** What one open-loop request sends; `body` is JSON text. */
export interface OpenLoopRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A sender over node:http with keep-alive connections, opened as needed up to `maxSockets` (beyond
 * that a request waits for a free one, and the wait counts in its latency). Lighter on the shared
 * cores than fetch, which matters at hundreds of requests a second.
 */
export function httpSender(baseUrl: string, requestOf: (i: number) => OpenLoopRequest, maxSockets = 256): { send: (s: Sent, i: number) => Promise<void>; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/$/, '');
  const send = (s: Sent, i: number) =>
    new Promise<void>((resolve) => {
      const r = requestOf(i);
      const req = http.request(
        { agent, host: base.hostname, port: base.port, method: r.method, path: `${prefix}${r.path}`, headers: r.headers, timeout: 10_000 },
        (res) => {
          res.resume();
          res.once('end', () => {
            s.answeredAt = now();
            s.status = res.statusCode;
            resolve();
          });
        },
      );
      req.once('timeout', () => req.destroy(new Error('timed out after 10 s')));
      req.once('error', (err) => {
        s.answeredAt ??= now();
        s.error = err.message;
        resolve();
      });
      req.end(r.body);
    });
  return { send, close: () => agent.destroy() };
}
