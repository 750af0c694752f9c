import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createPersonaClient } from './client.js';
import { JobFailedError, JobTimeoutError, waitForJob, type Job } from './jobs.js';
import { apiError, BASE, fakeApi, json } from './test-support/fake-api.js';
import { FakeSocket } from './test-support/fake-socket.js';

const job = (status: Job['status'], extra: Partial<Job> = {}): Job => ({
  id: 'job_1', job_type: 'generate_image', status, progress: status === 'completed' ? 100 : 40, character_id: 'char_1', content_id: 'cnt_1',
  result: null, error: null, created_at: '2026-11-27T12:00:00.000Z', started_at: null, finished_at: null, ...extra,
});

/** An API whose job reads answer `statuses` one after another (the last one again once spent). */
function jobApi(statuses: Array<Job['status'] | Response>) {
  let reads = 0;
  return fakeApi(() => {
    const next = statuses[Math.min(reads, statuses.length - 1)];
    reads += 1;
    return next instanceof Response ? next : json(200, { job: job(next) });
  });
}

/** Resolves when `check` holds, re-checked on every timer tick (the fakes answer at once). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const keyClient = (api: ReturnType<typeof fakeApi>) => createPersonaClient({ baseUrl: BASE, apiKey: 'psk_test' }, api.fetch);
const socketOption = { WebSocket: FakeSocket };

beforeEach(() => {
  FakeSocket.instances = [];
});

describe('waitForJob by polling', () => {
  it('reads GET /public/jobs/{id} with an API key until the job completes', async () => {
    const api = jobApi(['pending', 'running', 'running', 'completed']);
    const progress: string[] = [];
    const done = await waitForJob(keyClient(api), 'job_1', { socket: false, pollMs: 5, onProgress: (j) => progress.push(j.status) });
    expect(done.status).toBe('completed');
    expect(api.seen.map((r) => `${r.method} ${r.path} ${r.authorization}`)).toEqual(Array(4).fill('GET /public/jobs/job_1 Bearer psk_test'));
    expect(progress).toEqual(['pending', 'running', 'running']);
  });

  it('reads GET /jobs/{id} with a session', async () => {
    const api = jobApi(['running', 'completed']);
    const client = createPersonaClient({ baseUrl: BASE, session: { accessToken: 'a', refreshToken: 'r' } }, api.fetch);
    await waitForJob(client, 'job_1', { socket: false, pollMs: 5 });
    expect(api.seen.map((r) => r.path)).toEqual(['/jobs/job_1', '/jobs/job_1']);
  });

  it('throws JobFailedError with the job when it fails or is cancelled', async () => {
    const failed = fakeApi(() => json(200, { job: job('failed', { error: { code: 'provider_error', message: 'The image provider failed.' } }) }));
    const error = await waitForJob(keyClient(failed), 'job_1', { socket: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).job.error).toEqual({ code: 'provider_error', message: 'The image provider failed.' });
    expect((error as Error).message).toContain('The image provider failed.');
    await expect(waitForJob(keyClient(jobApi(['cancelled'])), 'job_1', { socket: false })).rejects.toMatchObject({ name: 'JobFailedError', job: { status: 'cancelled' } });
  });

  it('keeps polling through a passing error (429, 5xx) and stops at a final one (404)', async () => {
    const flaky = jobApi([apiError(503, 'service_unavailable'), apiError(429, 'rate_limited'), 'completed']);
    await expect(waitForJob(keyClient(flaky), 'job_1', { socket: false, pollMs: 5 })).resolves.toMatchObject({ status: 'completed' });
    const missing = jobApi([apiError(404, 'not_found')]);
    await expect(waitForJob(keyClient(missing), 'job_1', { socket: false, pollMs: 5 })).rejects.toMatchObject({ name: 'PersonaApiError', code: 'not_found' });
    expect(missing.seen).toHaveLength(1);
  });

  it('gives up after timeoutMs with the job as last seen, and stops on abort', async () => {
    const error = await waitForJob(keyClient(jobApi(['running'])), 'job_1', { socket: false, pollMs: 5, timeoutMs: 60 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobTimeoutError);
    expect((error as JobTimeoutError).lastSeen?.status).toBe('running');
    const controller = new AbortController();
    const api = jobApi(['running']);
    const waiting = waitForJob(keyClient(api), 'job_1', { socket: false, pollMs: 5, signal: controller.signal });
    await until(() => api.seen.length >= 2, 'two polls');
    controller.abort(new Error('user left'));
    await expect(waiting).rejects.toThrow('user left');
    const reads = api.seen.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(api.seen.length).toBe(reads);
  });
});

describe('waitForJob over the socket', () => {
  afterEach(() => {
    for (const socket of FakeSocket.instances) expect(socket.closed).toBeDefined();
  });

  it('authenticates with the client credential, reads the job once, and resolves on its job.completed event', async () => {
    const api = jobApi(['running']);
    const progress: number[] = [];
    const waiting = waitForJob(keyClient(api), 'job_1', { socket: socketOption, pollMs: 5, onProgress: (j) => progress.push(j.progress) });
    await until(() => FakeSocket.instances[0]?.sent.length === 1, 'the auth message');
    const socket = FakeSocket.instances[0];
    expect(socket.url).toBe('wss://api.example.test/api/v1/ws');
    expect(socket.sent).toEqual([{ type: 'auth', token: 'psk_test' }]);
    expect(api.seen).toHaveLength(0);

    socket.receive({ type: 'auth.ok', user_id: 'usr_1' });
    await until(() => api.seen.length === 1, 'the read after subscribing');
    socket.receive({ type: 'job.progress', job: { ...job('running'), id: 'job_other' } });
    socket.receive({ type: 'job.progress', job: job('running', { progress: 70 }) });
    socket.receive({ type: 'job.completed', job: job('completed') });
    await expect(waiting).resolves.toMatchObject({ id: 'job_1', status: 'completed' });
    expect(progress).toEqual([40, 70]);
    expect(api.seen).toHaveLength(1);
  });

  it('rejects on a job.failed event with the job attached', async () => {
    const waiting = waitForJob(keyClient(jobApi(['running'])), 'job_1', { socket: socketOption });
    await until(() => FakeSocket.instances[0]?.sent.length === 1, 'the auth message');
    FakeSocket.instances[0].receive({ type: 'auth.ok' });
    FakeSocket.instances[0].receive({ type: 'job.failed', job: job('failed', { error: { code: 'moderation', message: 'Refused.' } }) });
    await expect(waiting).rejects.toMatchObject({ name: 'JobFailedError', job: { status: 'failed' } });
  });

  it('does not miss a job that ended before the socket was subscribed', async () => {
    const api = jobApi(['completed']);
    const waiting = waitForJob(keyClient(api), 'job_1', { socket: socketOption });
    await until(() => FakeSocket.instances[0]?.sent.length === 1, 'the auth message');
    FakeSocket.instances[0].receive({ type: 'auth.ok' });
    await expect(waiting).resolves.toMatchObject({ status: 'completed' });
    expect(api.seen).toHaveLength(1);
  });

  it('uses the url and token given, and falls back to polling when the socket refuses them', async () => {
    const api = jobApi(['running', 'completed']);
    const waiting = waitForJob(keyClient(api), 'job_1', { socket: { ...socketOption, url: 'ws://elsewhere/ws', token: 'psk_other' }, pollMs: 5 });
    await until(() => FakeSocket.instances[0]?.sent.length === 1, 'the auth message');
    const socket = FakeSocket.instances[0];
    expect([socket.url, socket.sent[0].token]).toEqual(['ws://elsewhere/ws', 'psk_other']);
    socket.receive({ type: 'auth.error', code: 'insufficient_scope' });
    socket.close(4403);
    await expect(waiting).resolves.toMatchObject({ status: 'completed' });
    expect(api.seen.length).toBeGreaterThanOrEqual(2);
  });

  it('falls back to polling when the socket closes while waiting (a server going away)', async () => {
    const api = jobApi(['running', 'running', 'completed']);
    const waiting = waitForJob(keyClient(api), 'job_1', { socket: socketOption, pollMs: 5 });
    await until(() => FakeSocket.instances[0]?.sent.length === 1, 'the auth message');
    FakeSocket.instances[0].receive({ type: 'auth.ok' });
    await until(() => api.seen.length === 1, 'the read after subscribing');
    FakeSocket.instances[0].close(1001);
    await expect(waiting).resolves.toMatchObject({ status: 'completed' });
    expect(api.seen).toHaveLength(3);
  });

  it('still reads the job now and then while subscribed, for what the socket does not say (a cancellation)', async () => {
    const api = jobApi(['running', 'cancelled']);
    const waiting = waitForJob(keyClient(api), 'job_1', { socket: socketOption, socketPollMs: 10 });
    await until(() => FakeSocket.instances[0]?.sent.length === 1, 'the auth message');
    FakeSocket.instances[0].receive({ type: 'auth.ok' });
    await expect(waiting).rejects.toMatchObject({ name: 'JobFailedError', job: { status: 'cancelled' } });
  });

  it('polls when no WebSocket class is at hand', async () => {
    const global = globalThis as { WebSocket?: unknown };
    const saved = global.WebSocket;
    global.WebSocket = undefined;
    try {
      const api = jobApi(['running', 'completed']);
      await expect(waitForJob(keyClient(api), 'job_1', { pollMs: 5 })).resolves.toMatchObject({ status: 'completed' });
      expect(FakeSocket.instances).toHaveLength(0);
      expect(api.seen).toHaveLength(2);
    } finally {
      global.WebSocket = saved;
    }
  });

  it('polls when the WebSocket constructor throws', async () => {
    const Broken = jest.fn(() => {
      throw new Error('no sockets here');
    }) as unknown as typeof FakeSocket;
    const api = jobApi(['completed']);
    await expect(waitForJob(keyClient(api), 'job_1', { socket: { WebSocket: Broken } })).resolves.toMatchObject({ status: 'completed' });
  });
});
