import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Bull from 'bull';
import pg from 'pg';
import sharp from 'sharp';
import { api, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { describeOnServices, REDIS_URL } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { startFakeReplicate, type FakeReplicate, type FakeTraining, type FakeWebhookDelivery } from '../fakes/replicate-server.js';

type Body = Record<string, any>;

const REPLICATE_TOKEN = 'r8_lora_replicate_test_token';
const WEBHOOK_PATH = '/webhooks/replicate/trainings';
const LORA_IMAGE_MODEL = 'black-forest-labs/flux-dev-lora';

/** The API and workers against the fake: images and trainings on Replicate. */
function providerEnv(fake: FakeReplicate, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '1000', OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    MEDIA_PROVIDER: 'replicate', REPLICATE_API_URL: fake.url, REPLICATE_API_TOKEN: REPLICATE_TOKEN,
    LORA_PROVIDER: 'replicate', LORA_CHECK_INTERVAL_MS: '50',
    ...extra,
  };
}

function trainingPng(i: number): Promise<Buffer> {
  return sharp({ create: { width: 40 + i, height: 48, channels: 3, background: { r: (90 + i * 11) % 256, g: (40 + i * 7) % 256, b: (160 + i * 5) % 256 } } })
    .png()
    .toBuffer();
}

/** The fake's trainings whose uploaded ZIP was tagged with `loraId`, oldest first. */
function trainingsOf(fake: FakeReplicate, loraId: string): FakeTraining[] {
  return [...fake.trainings.values()].filter((t) => {
    const fileId = /\/v1\/files\/([^/?#]+)$/.exec(String(t.input.input_images))?.[1] ?? '';
    return (fake.uploads.get(fileId)?.metadata as { lora_id?: string } | undefined)?.lora_id === loraId;
  });
}

/** The job's polls of one training (GET /v1/trainings/{id}, exactly). */
function pollsOf(fake: FakeReplicate, trainingId: string): number {
  return fake.requests.filter((r) => r.method === 'GET' && r.path === `/v1/trainings/${trainingId}`).length;
}

function deliveriesOf(fake: FakeReplicate, trainingId: string): FakeWebhookDelivery[] {
  return fake.webhookDeliveries.filter((d) => d.trainingId === trainingId);
}

/** Standard Webhooks headers for `body`, signed with `secret` (a `whsec_` value), as Replicate sends them. */
function signed(secret: string, body: string, opts: { id?: string; timestamp?: number } = {}): Record<string, string> {
  const id = opts.id ?? `msg_${randomBytes(12).toString('hex')}`;
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

async function postWebhook(server: TestServer, headers: Record<string, string>, body: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${server.url}${WEBHOOK_PATH}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Body };
}

/** How many log lines of `processes` carry `msg` (and every one of `fields`, as JSON text). */
function logCount(processes: RunningProcess[], msg: string, ...fields: string[]): number {
  return processes
    .flatMap((p) => p.output.join('').split('\n'))
    .filter((line) => line.includes(`"msg":"${msg}"`) && fields.every((f) => line.includes(f))).length;
}

/** The routes a test drives, for one user on one server. */
function driver(server: () => TestServer, user: () => TestUser) {
  const get = async (path: string) => (await api(server()).get(path).set(user().auth)).body as Body;
  const d = {
    createCharacter: async (name: string): Promise<string> => {
      const res = await api(server()).post('/characters').set(user().auth).send({ name, niche: 'fitness' });
      expect(res.status).toBe(201);
      return res.body.character.id as string;
    },
    upload: async (id: string, from: number, count: number) => {
      const req = api(server()).post(`/characters/${id}/lora/images`).set(user().auth);
      for (let i = from; i < from + count; i++) void req.attach('images', await trainingPng(i), { filename: `img${i}.png`, contentType: 'image/png' });
      return req;
    },
    /** A character holding ten training images. */
    trainable: async (name: string): Promise<string> => {
      const id = await d.createCharacter(name);
      expect((await d.upload(id, 0, 10)).status).toBe(201);
      return id;
    },
    train: (id: string, body: Body = { base_model: 'flux-dev' }) => api(server()).post(`/characters/${id}/lora/train`).set(user().auth).send(body),
    lora: async (id: string) => (await get(`/characters/${id}/lora`)).lora as Body,
    status: (id: string) => get(`/characters/${id}/lora/status`),
    character: async (id: string) => (await get(`/characters/${id}`)).character as Body,
    images: async (id: string) => (await get(`/characters/${id}/lora/images`)).images as Body[],
    balance: async () => (await get('/billing/credits')).balance as number,
    ledger: async () => (await get('/billing/ledger?page_size=100')).entries as Body[],
    ledgerOf: async (jobId: string) => (await d.ledger()).filter((e) => e.ref_id === jobId).map((e) => [e.reason, e.amount]),
    job: async (id: string) => (await get(`/jobs/${id}`)).job as Body,
    jobEnded: (id: string) => waitFor(async () => {
      const job = await d.job(id);
      return ['completed', 'failed', 'cancelled'].includes(job?.status) ? job : undefined;
    }, 30_000, `job ${id} to end`),
    statusIs: (id: string, status: string) => waitFor(async () => {
      const s = await d.status(id);
      return s.status === status ? s : undefined;
    }, 30_000, `the LoRA of ${id} to be ${status}`),
  };
  return d;
}

type Driver = ReturnType<typeof driver>;

/** Trains `id` and waits until the fake has its training and our LoRA says `training`. */
async function startTraining(d: Driver, fake: FakeReplicate, id: string, body?: Body): Promise<{ jobId: string; loraId: string; training: FakeTraining; accepted: Body }> {
  // A retraining keeps its LoRA id: the new training is the one the fake did not have before.
  const known = new Set(fake.trainings.keys());
  const res = await d.train(id, body);
  expect(res.status).toBe(202);
  const loraId = res.body.lora.id as string;
  const training = await waitFor(async () => {
    const t = trainingsOf(fake, loraId).find((x) => !known.has(x.id));
    return t && (await d.status(id)).status === 'training' ? t : undefined;
  }, 30_000, `the training of ${id} to start at the fake`);
  return { jobId: res.body.job.id as string, loraId, training, accepted: res.body as Body };
}

/**
 * LoRA training on the Replicate adapter against the Replicate fake (contract §10, issue 13):
 * webhooks alone carry a training (the job's polls are ten minutes apart), forged and stale
 * webhooks change nothing, failures refund once, DELETE cancels at the provider, and a ready LoRA
 * draws every image after on the LoRA model.
 */
describe('LoRA training on Replicate, through webhooks', () => {
  let fake: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let user: TestUser;
  const d = driver(() => server, () => user);
  const destination = () => `${fake.account}/persona-${user.workspace.id.toLowerCase()}`;
  let first: { charId: string; loraId: string; jobId: string; weights: string; trigger: string };

  beforeAll(async () => {
    fake = await startFakeReplicate({ token: REPLICATE_TOKEN, training: { tickMs: 0, ticksToFinish: 4 } });
    backing = await createBacking();
    // No REPLICATE_WEBHOOK_SECRET: the API fetches the account's secret from the fake.
    server = await startServer(backing, providerEnv(fake, { RUN_JOBS_IN_API: 'true', LORA_POLL_INTERVAL_MS: '600000', LOG_LEVEL: 'warn' }));
    const admin = await loginAdmin(server);
    user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'pro');
    await grantCredits(server, admin, user.workspace.id, 5000);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    await backing?.cleanup();
  });

  it('goes queued → training → ready through webhooks alone, with the captioned ZIP, the inputs asked for, and progress from the logs', async () => {
    const charId = await d.trainable('Zara Kade');
    const credits = await d.balance();
    const { jobId, loraId, training: t, accepted } = await startTraining(d, fake, charId, { base_model: 'flux-dev', training_steps: 1200, lora_rank: 24 });
    expect(accepted.lora).toMatchObject({ status: 'queued', progress: 0, credits_charged: 500 });
    const trigger = accepted.lora.trigger_word as string;
    expect(await d.balance()).toBe(credits - 500);
    // The job asks once as it starts waiting; the next poll is ten minutes away, so from here on only webhooks move it.
    await waitFor(async () => pollsOf(fake, t.id) >= 1, 10_000, 'the job’s first poll');
    expect(await d.character(charId)).toMatchObject({ lora_training_status: 'training', face_consistency_tier: 'ip_adapter' });

    expect(t.model).toBe('ostris/flux-dev-lora-trainer');
    expect(t.destination).toBe(destination());
    expect(t.input).toMatchObject({ trigger_word: trigger, steps: 1200, lora_rank: 24, autocaption: false });
    expect(t.webhook).toBe(`${server.url}${WEBHOOK_PATH}`);
    expect(t.webhookEventsFilter).toEqual(['start', 'logs', 'completed']);
    expect(t.archive?.entries).toHaveLength(20);
    const captions = Object.values(t.archive?.captions ?? {});
    expect(captions).toHaveLength(10);
    for (const caption of captions) expect(caption).toContain(trigger);
    const created = fake.requestsTo('/v1/models', 'POST').filter((r) => r.path === '/v1/models');
    expect(created.map((r) => [r.body.owner, r.body.name, r.body.visibility])).toEqual([[fake.account, `persona-${user.workspace.id.toLowerCase()}`, 'private']]);

    const seen: number[] = [];
    for (let tick = 1; tick <= 3; tick++) {
      await fake.advance(t.id);
      const s = await d.status(charId);
      expect(s.status).toBe('training');
      seen.push(s.progress as number);
    }
    expect(seen).toEqual([25, 50, 75]);

    await fake.advance(t.id);
    expect(t.status).toBe('succeeded');
    const ready = await d.status(charId);
    // The webhook that made it ready completed its job in the same transaction: the two never disagree.
    expect(ready).toMatchObject({ status: 'ready', progress: 100, job: { id: jobId, status: 'completed', progress: 100 } });
    expect(await d.lora(charId)).toMatchObject({ id: loraId, status: 'ready', weights_url: t.output?.weights, error: null, trained_at: expect.any(String) });
    expect(await d.character(charId)).toMatchObject({ lora_training_status: 'ready', face_consistency_tier: 'lora' });
    const job = await d.jobEnded(jobId);
    expect(job).toMatchObject({ status: 'completed', result: { lora_id: loraId, status: 'ready', provider_version: t.output?.version } });
    expect(pollsOf(fake, t.id)).toBe(1);
    expect(deliveriesOf(fake, t.id).map((x) => [x.event, x.status])).toEqual([['start', 200], ['logs', 200], ['logs', 200], ['logs', 200], ['completed', 200]]);
    expect(await d.ledgerOf(jobId)).toEqual([['lora_training', -500]]);
    first = { charId, loraId, jobId, weights: t.output!.weights, trigger };
  });

  describe('a second character’s training in the same workspace', () => {
    let charId: string;
    let jobId: string;
    let t: FakeTraining;
    let credits: number;
    let good: FakeWebhookDelivery;
    let refusedLogs = 0;
    const unchanged = async () => {
      expect(await d.status(charId)).toMatchObject({ status: 'training', progress: 25 });
      expect(await d.character(charId)).toMatchObject({ lora_training_status: 'training' });
      expect(await d.balance()).toBe(credits);
    };
    // Unsigned and stale deliveries are refused before their body is read, forged ones once it is.
    const refusals = () => logCount([server], 'training webhook refused') + logCount([server], 'webhook refused before its body was read');

    beforeAll(async () => {
      charId = await d.trainable('Second Face');
      ({ jobId, training: t } = await startTraining(d, fake, charId));
      credits = await d.balance();
      await waitFor(async () => pollsOf(fake, t.id) >= 1, 10_000, 'the job’s first poll');
      await fake.advance(t.id);
      good = deliveriesOf(fake, t.id).at(-1)!;
      refusedLogs = refusals();
    }, 60_000);

    it('reuses the workspace’s destination model: created once', () => {
      expect(t.destination).toBe(destination());
      expect(fake.requestsTo('/v1/models', 'POST').filter((r) => r.path === '/v1/models')).toHaveLength(1);
      expect(good).toMatchObject({ event: 'logs', status: 200 });
    });

    it('refuses forged, unsigned and stale webhooks with 401 unauthorized, logs each, and changes nothing', async () => {
      await unchanged();
      fake.trainingOptions.forgeSignature = true;
      await fake.advance(t.id).finally(() => (fake.trainingOptions.forgeSignature = false));
      fake.trainingOptions.staleTimestamp = true;
      await fake.advance(t.id).finally(() => (fake.trainingOptions.staleTimestamp = false));
      expect(deliveriesOf(fake, t.id).slice(-2).map((x) => x.status)).toEqual([401, 401]);
      expect(t.logs).toContain('| 750/1000');
      await unchanged();

      const body = deliveriesOf(fake, t.id).at(-1)!.body;
      const wrongSecret = await postWebhook(server, signed(`whsec_${randomBytes(32).toString('base64')}`, body), body);
      const { 'webhook-signature': _, ...noSignature } = signed(fake.secret, body);
      const unsigned = await postWebhook(server, noSignature, body);
      const stale = await postWebhook(server, signed(fake.secret, body, { timestamp: Math.floor(Date.now() / 1000) - 3600 }), body);
      for (const res of [wrongSecret, unsigned, stale]) expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      expect((await fake.sendWebhook(t.id, { forgeSignature: true })).status).toBe(401);
      await unchanged();
      await waitFor(async () => refusals() - refusedLogs === 6, 10_000, 'six “training webhook refused” lines');
      expect(refusals() - refusedLogs).toBe(6);

      // The same body, signed right and fresh, is taken: the refusals above were for their signatures alone.
      const accepted = await postWebhook(server, signed(fake.secret, body), body);
      expect([accepted.status, accepted.body]).toEqual([200, { received: true, applied: true }]);
      expect(await d.status(charId)).toMatchObject({ status: 'training', progress: 75 });
    });

    it('answers a delivery seen before with 200 and changes nothing, even when its body says otherwise', async () => {
      const resent = await fake.sendWebhook(t.id, { webhookId: good.webhookId });
      expect(resent.status).toBe(200);
      const failedBody = JSON.stringify({ ...JSON.parse(good.body), status: 'failed', error: 'replayed', output: null });
      const replay = await postWebhook(server, signed(fake.secret, failedBody, { id: good.webhookId }), failedBody);
      expect([replay.status, replay.body]).toEqual([200, { received: true, applied: false }]);
      expect(await d.status(charId)).toMatchObject({ status: 'training', progress: 75 });
      expect(await d.balance()).toBe(credits);
      expect(await d.ledgerOf(jobId)).toEqual([['lora_training', -500]]);
    });

    it('refuses changes while training with 409 training_in_progress, writing nothing', async () => {
      const images = await d.images(charId);
      const entries = (await d.ledger()).length;
      const add = await d.upload(charId, 20, 1);
      const remove = await api(server).delete(`/characters/${charId}/lora/images/${images[0].id}`).set(user.auth);
      const again = await d.train(charId);
      for (const res of [add, remove, again]) expect([res.status, res.body.code]).toEqual([409, 'training_in_progress']);
      expect((await d.images(charId)).map((i) => i.id)).toEqual(images.map((i) => i.id));
      expect((await d.ledger()).length).toBe(entries);
      expect(await d.balance()).toBe(credits);
      expect(await d.lora(charId)).toMatchObject({ job_id: jobId, status: 'training' });
    });

    it('ends ready once when the completion is delivered twice', async () => {
      fake.trainingOptions.duplicateWebhooks = true;
      await fake.finish(t.id).finally(() => (fake.trainingOptions.duplicateWebhooks = false));
      const completions = deliveriesOf(fake, t.id).filter((x) => x.event === 'completed');
      expect(completions.map((x) => x.status)).toEqual([200, 200]);
      expect(completions[0].webhookId).toBe(completions[1].webhookId);
      expect(await d.lora(charId)).toMatchObject({ status: 'ready', weights_url: t.output?.weights });
      expect(await d.balance()).toBe(credits);
      expect((await d.jobEnded(jobId)).status).toBe('completed');
    });
  });

  it('draws images of a ready character on the LoRA model with its weights, scale and trigger word; others on the plain model', async () => {
    const generate = async (characterId: string, prompt: string) => {
      const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: characterId, platform: 'instagram', type: 'single', prompt });
      expect(res.status).toBe(201);
      const job = await d.jobEnded(res.body.job.id as string);
      expect(job.status).toBe('completed');
      return { job, prediction: [...fake.predictions.values()].at(-1)! };
    };
    const plain = await generate(await d.createCharacter('No Lora'), 'Morning run');
    expect(plain.job.result.lora_id).toBeUndefined();
    expect(plain.prediction.model).toBe('black-forest-labs/flux-dev');
    expect(plain.prediction.input.lora_weights).toBeUndefined();

    const withLora = await generate(first.charId, 'Morning run');
    expect(withLora.job.result.lora_id).toBe(first.loraId);
    expect(withLora.prediction.model).toBe(LORA_IMAGE_MODEL);
    expect(withLora.prediction.input).toMatchObject({ lora_weights: first.weights, lora_scale: 1 });
    expect(withLora.prediction.input.prompt).toContain(first.trigger);
  });

  describe('a training that fails at the provider', () => {
    let charId: string;
    let jobId: string;
    let t: FakeTraining;
    let before: number;

    beforeAll(async () => {
      charId = await d.trainable('Unlucky');
      before = await d.balance();
      ({ jobId, training: t } = await startTraining(d, fake, charId));
    }, 60_000);
    afterAll(() => fake.setMode({ kind: 'ok' }));

    it('ends failed with training_failed, refunded by exactly one ledger row, and its job failed', async () => {
      await fake.advance(t.id);
      expect(await d.balance()).toBe(before - 500);
      fake.setMode({ kind: 'fail', error: 'CUDA out of memory' });
      await fake.finish(t.id);
      fake.setMode({ kind: 'ok' });
      expect(t.status).toBe('failed');
      expect(await d.status(charId)).toMatchObject({ status: 'failed', job: { id: jobId, status: 'failed', error: { code: 'upstream_failed' } } });
      expect(await d.lora(charId)).toMatchObject({ status: 'failed', error: { code: 'training_failed', message: expect.stringContaining('CUDA out of memory') }, weights_url: null });
      expect(await d.character(charId)).toMatchObject({ lora_training_status: 'failed', face_consistency_tier: 'ip_adapter' });
      expect(await d.jobEnded(jobId)).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
      expect((await d.ledgerOf(jobId)).sort()).toEqual([['lora_training', -500], ['lora_training_refund', 500]]);
      expect(await d.balance()).toBe(before);
    });

    it('trains again after the failure (failed → queued), charged again', async () => {
      const again = await startTraining(d, fake, charId);
      expect(again.accepted.lora).toMatchObject({ status: 'queued', error: null, credits_charged: 500 });
      expect(again.jobId).not.toBe(jobId);
      expect(again.training.id).not.toBe(t.id);
      expect(await d.balance()).toBe(before - 500);
      expect(await d.ledgerOf(again.jobId)).toEqual([['lora_training', -500]]);
      jobId = again.jobId;
      t = again.training;
    });

    it('DELETE while training cancels it at the provider and does not refund', async () => {
      await fake.advance(t.id);
      expect(await d.status(charId)).toMatchObject({ status: 'training', progress: 25 });
      const res = await api(server).delete(`/characters/${charId}/lora`).set(user.auth);
      expect(res.status).toBe(204);
      expect(fake.requestsTo(`/v1/trainings/${t.id}/cancel`, 'POST').length).toBeGreaterThanOrEqual(1);
      expect(t.status).toBe('canceled');
      expect(await d.status(charId)).toEqual({ status: 'none', progress: 0, job: null });
      expect(await d.character(charId)).toMatchObject({ lora_training_status: 'none', face_consistency_tier: 'ip_adapter' });
      expect((await d.jobEnded(jobId)).status).toBe('cancelled');
      // The provider's cancellation webhook is for a training we no longer have: taken, and nothing changes.
      await fake.webhooksSettled();
      expect(deliveriesOf(fake, t.id).filter((x) => x.event === 'completed').map((x) => x.status)).toEqual([200]);
      expect(await d.ledgerOf(jobId)).toEqual([['lora_training', -500]]);
      expect(await d.balance()).toBe(before - 500);
    });
  });

  it('DELETE while still queued with us refunds in full, and the training started meanwhile is cancelled at the provider', async () => {
    const charId = await d.trainable('Held Up');
    const before = await d.balance();
    const hold = fake.hold('/v1/files', 'POST');
    let loraId = '';
    try {
      const res = await d.train(charId);
      expect(res.status).toBe(202);
      const jobId = res.body.job.id as string;
      loraId = res.body.lora.id as string;
      await waitFor(async () => hold.held === 1, 30_000, 'the upload to be held');
      expect(await d.status(charId)).toMatchObject({ status: 'queued' });

      const images = await d.images(charId);
      const add = await d.upload(charId, 20, 1);
      const remove = await api(server).delete(`/characters/${charId}/lora/images/${images[0].id}`).set(user.auth);
      const again = await d.train(charId);
      for (const r of [add, remove, again]) expect([r.status, r.body.code]).toEqual([409, 'training_in_progress']);
      expect((await d.images(charId)).length).toBe(10);
      expect(await d.ledgerOf(jobId)).toEqual([['lora_training', -500]]);

      expect((await api(server).delete(`/characters/${charId}/lora`).set(user.auth)).status).toBe(204);
      expect(await d.balance()).toBe(before);
      expect((await d.ledgerOf(jobId)).sort()).toEqual([['lora_training', -500], ['lora_training_refund', 500]]);
      expect(await d.status(charId)).toEqual({ status: 'none', progress: 0, job: null });

      hold.release();
      const t = await waitFor(async () => trainingsOf(fake, loraId).find((x) => x.status === 'canceled'), 30_000, 'the late training to be cancelled');
      expect(trainingsOf(fake, loraId)).toHaveLength(1);
      expect(fake.requestsTo(`/v1/trainings/${t.id}/cancel`, 'POST').length).toBeGreaterThanOrEqual(1);
      expect((await d.job(jobId)).status).toBe('cancelled');
      expect(await d.status(charId)).toEqual({ status: 'none', progress: 0, job: null });
      expect(await d.character(charId)).toMatchObject({ lora_training_status: 'none' });
      expect(await d.balance()).toBe(before);
      expect(await d.ledgerOf(jobId)).toHaveLength(2);
    } finally {
      hold.release();
    }
  });
});

describe('LoRA training on Replicate, webhooks dropped', () => {
  let fake: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let user: TestUser;
  const d = driver(() => server, () => user);

  beforeAll(async () => {
    fake = await startFakeReplicate({ token: REPLICATE_TOKEN, training: { tickMs: 50, ticksToFinish: 3, dropWebhooks: true } });
    backing = await createBacking();
    server = await startServer(backing, providerEnv(fake, { RUN_JOBS_IN_API: 'true', LORA_POLL_INTERVAL_MS: '100', REPLICATE_WEBHOOK_SECRET: fake.secret }));
    const admin = await loginAdmin(server);
    user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'pro');
    await grantCredits(server, admin, user.workspace.id, 1000);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    await backing?.cleanup();
  });

  it('reaches ready through the job’s polls alone', async () => {
    const charId = await d.trainable('Polled');
    const res = await d.train(charId);
    expect(res.status).toBe(202);
    const jobId = res.body.job.id as string;
    await d.statusIs(charId, 'ready');
    const [t] = trainingsOf(fake, res.body.lora.id as string);
    expect(t.status).toBe('succeeded');
    const sent = deliveriesOf(fake, t.id);
    expect(sent.map((x) => x.event)).toEqual(expect.arrayContaining(['start', 'logs', 'completed']));
    expect(sent.every((x) => x.dropped && x.status === null)).toBe(true);
    // Every webhook was dropped, so polls moved it: at least the one that saw it end (on a slow machine the
    // fake's ticks can finish the training before the job's first poll, so one poll may be all it takes).
    expect(pollsOf(fake, t.id)).toBeGreaterThanOrEqual(1);
    expect(await d.lora(charId)).toMatchObject({ status: 'ready', progress: 100, weights_url: t.output?.weights });
    expect(await d.character(charId)).toMatchObject({ lora_training_status: 'ready', face_consistency_tier: 'lora' });
    expect(await d.jobEnded(jobId)).toMatchObject({ status: 'completed', result: { lora_id: res.body.lora.id } });
  });
});

/**
 * Two workers run the same train_lora job at once (a second Bull message for it, as Bull's own
 * re-delivery of a job it presumes stalled would be) while the training fails at the provider and
 * its completion webhook arrives twice at once: one state change, one refund. Always on PostgreSQL
 * and Redis, whatever E2E_MODE says.
 */
describeOnServices('LoRA training on Replicate: two workers and a webhook racing on the end', () => {
  const ROUNDS = 3;
  let fake: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let workers: RunningProcess[] = [];
  let user: TestUser;
  let db: pg.Client;
  let queue: Bull.Queue;
  const d = driver(() => server, () => user);

  beforeAll(async () => {
    fake = await startFakeReplicate({ token: REPLICATE_TOKEN, training: { tickMs: 0 } });
    backing = await createBacking({ services: true });
    const env = providerEnv(fake, { REPLICATE_WEBHOOK_SECRET: fake.secret, LORA_POLL_INTERVAL_MS: '50', LOG_LEVEL: 'warn' });
    server = await startServer(backing, env);
    // One job at a time per worker: while one runs the training, the second message goes to the other.
    const workerEnv = { ...env, JOB_CONCURRENCY: '1', LORA_WEBHOOK_URL: `${server.url}${WEBHOOK_PATH}` };
    workers = await Promise.all([startWorker(backing, workerEnv), startWorker(backing, workerEnv)]);
    db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
    queue = new Bull('jobs', REDIS_URL, { prefix: backing.env.REDIS_PREFIX });
    const admin = await loginAdmin(server);
    user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'pro');
    await grantCredits(server, admin, user.workspace.id, 1000);
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await db?.end();
    await Promise.all([server?.stop(), ...workers.map((w) => w.stop())]);
    await fake?.close();
    await backing?.cleanup();
  });

  it(`settles each of ${ROUNDS} trainings once: one failure, one refund, the balance as before`, async () => {
    const charId = await d.trainable('Raced');
    const attempts = async (jobId: string) => ((await db.query('SELECT attempts FROM jobs WHERE id = $1', [jobId])).rows[0]?.attempts as number | undefined) ?? 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const before = await d.balance();
      const { jobId, training: t } = await startTraining(d, fake, charId);
      await queue.add({ jobId }, { jobId: `${jobId}:dup` });
      await waitFor(async () => (await attempts(jobId)) === 2, 30_000, 'the second run to claim the job');
      // Both runs are waiting now: let each poll a few times before the end arrives.
      const polled = pollsOf(fake, t.id);
      await waitFor(async () => pollsOf(fake, t.id) >= polled + 6, 10_000, 'both runs polling');

      fake.trainingOptions.dropWebhooks = true;
      fake.setMode({ kind: 'fail', error: `GPU lost in round ${round}` });
      await fake.finish(t.id);
      const webhookId = `msg_race_${round}_${randomBytes(6).toString('hex')}`;
      const sent = await Promise.all([fake.sendWebhook(t.id, { webhookId }), fake.sendWebhook(t.id, { webhookId })]);
      fake.setMode({ kind: 'ok' });
      fake.trainingOptions.dropWebhooks = false;

      expect(sent.map((x) => x.status)).toEqual([200, 200]);
      expect(await d.jobEnded(jobId)).toMatchObject({ status: 'failed' });
      expect((await d.ledgerOf(jobId)).sort()).toEqual([['lora_training', -500], ['lora_training_refund', 500]]);
      expect(await d.balance()).toBe(before);
      expect(await d.lora(charId)).toMatchObject({ status: 'failed', error: { code: 'training_failed' } });
      expect(await d.character(charId)).toMatchObject({ lora_training_status: 'failed' });
      expect(await attempts(jobId)).toBe(2);
      const deliveries = await db.query('SELECT id FROM lora_webhook_deliveries WHERE provider_training_id = $1', [t.id]);
      // The raced delivery is recorded (once: its id is the key). The training's own 'start' event may be
      // recorded too, when it arrived after the job had written the provider's id.
      expect(deliveries.rows.map((r) => r.id)).toContain(webhookId);
      await waitFor(async () => logCount([server, ...workers], 'lora training failed', `"job_id":"${jobId}"`) >= 1, 10_000, 'the failure logged');
      expect(logCount([server, ...workers], 'lora training failed', `"job_id":"${jobId}"`)).toBe(1);
    }
  }, 180_000);
});
