import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

/**
 * Issue 25 item 6: a SIGTERM must not reset a request a client sent before it. An API under load
 * from keep-alive clients (GETs and POSTs, with short pauses, so that at the signal some connections
 * are busy, some idle, and some carry a request the server has not read yet) is stopped; every
 * request sent before the signal must get a real answer. Five stops.
 */

type Body = Record<string, any>;

interface Outcome {
  method: 'GET' | 'POST';
  sentAt: number;
  status?: number;
  connection?: string;
  error?: string;
}

function jsonLines(proc: RunningProcess): Body[] {
  return proc.output.join('').split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Body];
    } catch {
      return [];
    }
  });
}

function exitOf(proc: RunningProcess): Promise<number | null> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return Promise.resolve(proc.child.exitCode);
  return new Promise((resolve) => proc.child.once('exit', (code) => resolve(code)));
}

/** One request on `agent`; no retry of any kind: what the client sees is what is recorded. */
function send(agent: Agent, port: number, method: 'GET' | 'POST', path: string, token: string, body?: Body): Promise<Outcome> {
  const text = body ? JSON.stringify(body) : undefined;
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest({
      host: '127.0.0.1', port, path, method, agent,
      headers: { Authorization: `Bearer ${token}`, ...(text ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } : {}) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ method, sentAt, status: res.statusCode, connection: res.headers.connection }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ method, sentAt, error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ method, sentAt, error: err.code ?? err.message }));
    req.end(text);
  });
}

const CLIENTS = 10;
/** Requests per client at most: the loop is bounded whatever happens. */
const MAX_REQUESTS = 400;
const ROUNDS = 5;

describe('SIGTERM to an API under keep-alive load', () => {
  let backing: Backing;
  let server: TestServer | undefined;
  let user: TestUser;
  const env = { LOG_LEVEL: 'info', RATE_LIMIT_MULTIPLIER: '1000', AUTH_RATE_LIMIT_PER_MINUTE: '1000', SHUTDOWN_TIMEOUT_SECONDS: '20' };

  beforeAll(async () => {
    backing = await createBacking({ services: true });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await backing?.cleanup();
  });

  it(`answers every request sent before the signal, ${ROUNDS} stops in a row`, async () => {
    const rounds: Body[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      server = await startServer(backing, env);
      if (round === 1) user = await registerUser(server);
      const port = server.port;
      const exited = exitOf(server);

      const outcomes: Outcome[] = [];
      const loops = Array.from({ length: CLIENTS }, async (_, client) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let n = 0; n < MAX_REQUESTS; n += 1) {
          const post = (n + client) % 3 === 0;
          const outcome = post
            ? await send(agent, port, 'POST', '/api/v1/characters', user.token, { name: `Load ${round}-${client}-${n}`, niche: 'fault' })
            : await send(agent, port, 'GET', '/api/v1/auth/me', user.token);
          outcomes.push(outcome);
          if (outcome.error) break;
          // A short pause: at any instant some connections are idle between two requests.
          await new Promise((resolve) => setTimeout(resolve, (n * 7 + client * 3) % 15));
        }
        agent.destroy();
      });
      await waitFor(async () => outcomes.filter((o) => o.status !== undefined).length >= 150, 60_000, 'the load to be running');

      const signalAt = Date.now();
      server.child.kill('SIGTERM');
      await Promise.all(loops);
      expect(await exited).toBe(0);

      const before = outcomes.filter((o) => o.sentAt < signalAt);
      const unanswered = before.filter((o) => o.status === undefined);
      // Every request sent before the signal got a whole answer, of the application (no 5xx).
      expect(unanswered).toEqual([]);
      expect(before.filter((o) => o.status! >= 500)).toEqual([]);
      // After it, a client learns of the stop cleanly: a refused new connection, never a reset.
      const after = outcomes.filter((o) => o.sentAt >= signalAt);
      expect(after.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED')).toEqual([]);

      const stopped = jsonLines(server).find((l) => l.msg === 'api stopped');
      expect(stopped).toMatchObject({ requests_cut: 0 });
      const figures = {
        round,
        sent_before_signal: before.length,
        answered_before_signal: before.length - unanswered.length,
        sent_within_150ms_before: before.filter((o) => o.sentAt >= signalAt - 150).length,
        answered_with_connection_close: outcomes.filter((o) => o.connection === 'close').length,
        refused_after_signal: after.filter((o) => o.error === 'ECONNREFUSED').length,
        requests_drained: stopped?.requests_drained,
        stop_ms: stopped?.duration_ms,
      };
      rounds.push(figures);
      server = undefined;
    }
    process.stdout.write(`sigterm fault figures: ${JSON.stringify(rounds)}\n`);
  }, 170_000);
});
