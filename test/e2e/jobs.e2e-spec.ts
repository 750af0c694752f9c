import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { api, missingId, registerUser, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { recordedEvents, takeEveryEvent } from '../helpers/outbox.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';
import { describeOnServices, REDIS_URL } from '../helpers/env.js';
import { createCharacter, startFaceEmbeddingJob } from '../fakes/queue-e2e-jobs.js';

const JOB_SHAPE = /^job_[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /jobs/{id} and job progress', () => {
  let backing: Backing;
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let socket: TestSocket | undefined;

  beforeAll(async () => {
    backing = await createBacking();
    // With Redis an API runs no jobs unless told to; here the API runs them itself.
    server = await startServer(backing, { RUN_JOBS_IN_API: 'true', OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    alice = await registerUser(server);
    bob = await registerUser(server);
    await takeEveryEvent(server, alice);
  });
  afterAll(async () => {
    socket?.close();
    await server?.stop();
    await backing?.cleanup();
  });

  it('needs a session token', async () => {
    const res = await api(server).get(`/jobs/${missingId('job')}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('answers 404 for a malformed id and for an unknown one', async () => {
    for (const id of ['nope', missingId('char'), 'job_123', missingId('job')]) {
      const res = await api(server).get(`/jobs/${id}`).set(alice.auth);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', message: 'Job not found.' });
    }
  });

  it('streams a job from pending to completed on the socket; GET shows it; another workspace gets 404', async () => {
    socket = await authedSocket(server.wsUrl, alice.token);
    const characterId = await createCharacter(server, alice);
    const job = await startFaceEmbeddingJob(server, alice, characterId);
    expect(job).toMatchObject({ job_type: 'recompute_face_embedding', status: 'pending', progress: 0, character_id: characterId });
    expect(job.id).toMatch(JOB_SHAPE);

    const completed = await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 20_000);
    expect(completed.job).toMatchObject({ status: 'completed', progress: 100, error: null, character_id: characterId });
    const progress = socket.messages.filter((m) => m.type === 'job.progress' && m.job.id === job.id).map((m) => m.job);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0].status).toBe('running');
    const percents = progress.map((j) => j.progress as number);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));

    const res = await api(server).get(`/jobs/${job.id}`).set(alice.auth);
    expect(res.status).toBe(200);
    expect(res.body.job).toEqual(completed.job);
    expect(Object.keys(res.body.job).sort()).toEqual(
      ['character_id', 'content_id', 'created_at', 'error', 'finished_at', 'id', 'job_type', 'progress', 'result', 'started_at', 'status'],
    );
    for (const field of ['created_at', 'started_at', 'finished_at']) expect(res.body.job[field]).toMatch(ISO);
    expect(res.body.job.result).toEqual(expect.objectContaining({ character_id: characterId }));

    const foreign = await api(server).get(`/jobs/${job.id}`).set(bob.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');

    // Its end is one customer event, recorded with it (docs/events.md); bob's workspace takes no
    // event, so his job's end writes nothing to the outbox.
    expect(await recordedEvents(backing, 'jobId', job.id)).toEqual([
      { type: 'job.completed', workspace_id: alice.workspace.id, payload: { jobId: job.id, jobType: 'recompute_face_embedding' } },
    ]);
    const bobJob = (await startFaceEmbeddingJob(server, bob, await createCharacter(server, bob))).id;
    await waitFor(async () => (await api(server).get(`/jobs/${bobJob}`).set(bob.auth)).body.job.status === 'completed', 20_000, "bob's job to complete");
    expect(await recordedEvents(backing, 'jobId', bobJob)).toEqual([]);
  });
});

/** Scale-out, always on real PostgreSQL + Redis: two APIs that run no jobs, and one worker. */
describeOnServices('jobs across instances (PostgreSQL + Redis)', () => {
  let backing: Backing;
  let apiA: TestServer;
  let apiB: TestServer;
  let worker: RunningProcess | undefined;
  let user: TestUser;
  let socket: TestSocket;
  const env = { RUN_JOBS_IN_API: 'false', LOG_LEVEL: 'info' };

  beforeAll(async () => {
    backing = await createBacking({ services: true });
    [apiA, apiB] = await Promise.all([startServer(backing, env), startServer(backing, env)]);
    worker = await startWorker(backing, { LOG_LEVEL: 'info' });
    user = await registerUser(apiB);
    socket = await authedSocket(apiA.wsUrl, user.token);
  }, 90_000);
  afterAll(async () => {
    socket?.close();
    await Promise.all([apiA?.stop(), apiB?.stop(), worker?.stop()]);
    await backing?.cleanup();
  });

  it('a socket on instance A receives job.completed for a job created on instance B and run by the worker', async () => {
    const job = await startFaceEmbeddingJob(apiB, user, await createCharacter(apiB, user));
    const completed = await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 20_000);
    expect(completed.job).toMatchObject({ status: 'completed', progress: 100, job_type: 'recompute_face_embedding' });
    const viaA = await api(apiA).get(`/jobs/${job.id}`).set(user.auth);
    expect(viaA.body.job).toMatchObject({ id: job.id, status: 'completed' });

    const consumerStarted = (p: RunningProcess) => p.output.join('').includes('"msg":"job consumer started"');
    expect(consumerStarted(worker!)).toBe(true);
    expect(consumerStarted(apiA)).toBe(false);
    expect(consumerStarted(apiB)).toBe(false);
  });

  it('a worker that starts later runs a job whose queue message was lost after commit', async () => {
    await worker!.stop();
    worker = undefined;
    const job = await startFaceEmbeddingJob(apiB, user, await createCharacter(apiB, user, 'Recovered'), 7);
    // Lose the queue message: drop every Bull key of this backing's prefix.
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${backing.env.REDIS_PREFIX}:jobs:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    const pending = await api(apiA).get(`/jobs/${job.id}`).set(user.auth);
    expect(pending.body.job.status).toBe('pending');

    worker = await startWorker(backing);
    await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 20_000);
    await waitFor(async () => {
      const res = await api(apiB).get(`/jobs/${job.id}`).set(user.auth);
      return res.body.job?.status === 'completed';
    }, 5_000, 'the job row to show completed');
  });
});
