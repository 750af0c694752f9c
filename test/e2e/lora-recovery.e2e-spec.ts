import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';
import { api, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

const TOKEN = 'r8_lora_recovery_token';
type Body = Record<string, any>;

/**
 * A training outlives the process waiting on it. The process running jobs (the worker with
 * PostgreSQL + Redis, the API on the embedded defaults) is stopped mid-training: its job is let go,
 * and the next process resumes waiting on the same provider training, never starting a second one
 * or charging twice.
 */
describe('LoRA training across a restart of the process running it', () => {
  let fake: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let runner: RunningProcess | undefined;
  let owner: TestUser;
  let env: Record<string, string>;

  /** With Redis a worker runs the jobs (it names the API's address for webhooks); on the embedded defaults the API does. */
  const startWorkerIfAny = async () => {
    if (E2E_MODE === 'services') runner = await startWorker(backing, { ...env, PUBLIC_URL: `http://127.0.0.1:${server.port}` });
  };
  /** Stops the process running jobs (SIGTERM: it lets its jobs go), and starts it again. */
  const restartRunner = async () => {
    if (E2E_MODE === 'services') {
      await runner?.stop('SIGTERM');
      return;
    }
    await server.stop('SIGTERM');
    server = await startServer(backing, env);
  };
  const get = async (path: string) => (await api(server).get(path).set(owner.auth)).body as Body;

  beforeAll(async () => {
    fake = await startFakeReplicate({ token: TOKEN, training: { tickMs: 0, ticksToFinish: 3 } });
    backing = await createBacking();
    env = {
      AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '100', LORA_PROVIDER: 'replicate', REPLICATE_API_URL: fake.url,
      REPLICATE_API_TOKEN: TOKEN, LORA_POLL_INTERVAL_MS: '200', LORA_CHECK_INTERVAL_MS: '50', SHUTDOWN_TIMEOUT_SECONDS: '3', LOG_LEVEL: 'info',
    };
    server = await startServer(backing, env);
    await startWorkerIfAny();
    const admin = await loginAdmin(server);
    owner = await registerUser(server);
    await setPlan(server, admin, owner.workspace.id, 'pro');
    await grantCredits(server, admin, owner.workspace.id, 1000);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), runner?.stop()]);
    await fake?.close();
    await backing?.cleanup();
  });

  it('resumes waiting on the provider’s training: one training at the provider, one charge, ready, the job completed once', async () => {
    const character = (await api(server).post('/characters').set(owner.auth).send({ name: 'Resumed', niche: 'travel' })).body.character.id as string;
    const upload = api(server).post(`/characters/${character}/lora/images`).set(owner.auth);
    for (let i = 0; i < 10; i++) {
      const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: i * 20, g: 90, b: 160 } } }).png().toBuffer();
      void upload.attach('images', png, { filename: `${i}.png`, contentType: 'image/png' });
    }
    expect((await upload).status).toBe(201);
    const balance = (await get('/billing/credits')).balance as number;
    const train = await api(server).post(`/characters/${character}/lora/train`).set(owner.auth).send({ base_model: 'flux-dev' });
    expect(train.status).toBe(202);
    const jobId = train.body.job.id as string;
    await waitFor(async () => (await get(`/characters/${character}/lora/status`)).status === 'training', 30_000, 'the training to start');
    expect(fake.trainings.size).toBe(1);
    const [training] = [...fake.trainings.values()];
    await fake.advance(training.id);

    await restartRunner();
    // Let go at the stop: the job is pending again (and at once running again where the API restarted runs it), the LoRA still training.
    const released = await get(`/jobs/${jobId}`);
    expect(E2E_MODE === 'services' ? ['pending'] : ['pending', 'running']).toContain(released.job.status);
    expect((await get(`/characters/${character}/lora/status`)).status).toBe('training');
    await startWorkerIfAny();

    await fake.finish(training.id);
    const done = await waitFor(async () => {
      const job = (await get(`/jobs/${jobId}`)).job as Body;
      return job.status === 'completed' ? job : undefined;
    }, 30_000, 'the resumed training job to complete');
    expect(done.result).toMatchObject({ lora_id: train.body.lora.id, status: 'ready' });
    expect(fake.trainings.size).toBe(1);
    expect(fake.requestsTo('/trainings', 'POST').filter((r) => !r.path.endsWith('/cancel'))).toHaveLength(1);
    expect(await get(`/characters/${character}/lora`)).toMatchObject({ lora: { status: 'ready', weights_url: training.output?.weights } });
    const ledger = ((await get('/billing/ledger?page_size=100')).entries as Body[]).filter((e) => e.ref_id === jobId);
    expect(ledger.map((e) => [e.reason, e.amount])).toEqual([['lora_training', -500]]);
    expect((await get('/billing/credits')).balance).toBe(balance - 500);
  });
});
