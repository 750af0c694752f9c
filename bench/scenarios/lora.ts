import { createHmac, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { startFakeReplicate, type FakeReplicate } from '../../test/fakes/replicate-server.js';
import { adminToken, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient } from '../lib/http.js';
import { isClean, measure, measureInTurns, type LoadOptions, type Measurement } from '../lib/load.js';
import { RssMonitor } from '../lib/memory.js';
import { ratioTarget, table, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { sleep } from '../lib/stats.js';

/**
 * LoRA (issue 13): trainings on the Replicate trainings API (the fake on 127.0.0.1), images on the
 * local renderer. Two readings:
 *
 * 1. The added cost of a ready LoRA on `POST /content/generate`: the route for a character with a
 *    ready LoRA against the same route for one without, measured in turns in the same run (target
 *    ≥ 95 %). The route itself does not look the LoRA up (the image job does, one indexed read), so
 *    this shows the route pays nothing for it; the job side is read in (3).
 * 2. Webhook ingestion: signed `processing` events of a running training (a training object with
 *    8 KiB of logs, a new `webhook-id` each) at 50 connections: verify the signature over the raw
 *    bytes, find the training, record the delivery and move the progress, each in one transaction.
 * 3. The job side: a worker drains a batch of image jobs for each character, alternately; jobs/s
 *    of each (the LoRA's lookup is one indexed read per job; a provider LoRA has no local style, so
 *    the local renderer draws the same image).
 */
/**
 * Limits lifted for load: sign-in, the plan's, and the per-address budget of open routes (provider
 * webhooks spend it, and every request here comes from 127.0.0.1: at its default of 600 a minute the
 * training webhooks were a 429 benchmark).
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', OPEN_RATE_LIMIT_PER_MINUTE: '100000' };
const TRAINING_IMAGES = 10;
const LOG_BYTES = 8 * 1024;
const DRAIN_BATCH = 40;
const DRAIN_ROUNDS = 4;

interface Setup {
  owner: Account;
  withLora: string;
  withoutLora: string;
  runningTraining: string;
}

async function trainingImage(i: number): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 3, background: { r: (40 + i * 20) % 256, g: 120, b: (200 - i * 15) % 256 } } }).png().toBuffer();
}

async function uploadImages(api: ApiClient, owner: Account, characterId: string): Promise<void> {
  const form = new FormData();
  for (let i = 0; i < TRAINING_IMAGES; i++) form.append('images', new Blob([await trainingImage(i)], { type: 'image/png' }), `${i}.png`);
  const res = await fetch(`${api.baseUrl}/characters/${characterId}/lora/images`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
  if (res.status !== 201) throw new Error(`training images answered ${res.status}: ${await res.text()}`);
}

/** A character with 10 images and a training started at the fake; answers the character and the provider's training id. */
async function startTraining(api: ApiClient, owner: Account, fake: FakeReplicate, name: string): Promise<{ characterId: string; trainingId: string }> {
  const character = await api.post<{ character: { id: string } }>('/characters', { name, niche: 'fitness' }, { token: owner.token, expect: 201 });
  const characterId = character.body.character.id;
  await uploadImages(api, owner, characterId);
  const known = new Set(fake.trainings.keys());
  await api.post(`/characters/${characterId}/lora/train`, { base_model: 'flux-dev' }, { token: owner.token, expect: 202 });
  const trainingId = await until(async () => [...fake.trainings.keys()].find((id) => !known.has(id)), `the training of ${name} at the fake`);
  await until(async () => (await loraStatus(api, owner, characterId)) === 'training', `${name} training`);
  return { characterId, trainingId };
}

async function loraStatus(api: ApiClient, owner: Account, characterId: string): Promise<string> {
  return (await api.get<{ status: string }>(`/characters/${characterId}/lora/status`, { token: owner.token })).body.status;
}

async function until<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function seed(api: ApiClient, fake: FakeReplicate): Promise<Setup> {
  const admin = await adminToken(api);
  const owner = await setPlan(api, admin, await register(api, `lora-${Date.now().toString(36)}@bench.test`), 'agency');
  await api.post(`/admin/workspaces/${owner.workspaceId}/credits`, { amount: 1_000_000, reason: 'bench: lora scenario' }, { token: admin });
  const ready = await startTraining(api, owner, fake, 'Lora Ready');
  await fake.finish(ready.trainingId);
  await fake.webhooksSettled();
  await until(async () => (await loraStatus(api, owner, ready.characterId)) === 'ready', 'the LoRA to be ready');
  const running = await startTraining(api, owner, fake, 'Lora Running');
  const plain = await api.post<{ character: { id: string } }>('/characters', { name: 'No Lora', niche: 'fitness' }, { token: owner.token, expect: 201 });
  return { owner, withLora: ready.characterId, withoutLora: plain.body.character.id, runningTraining: running.trainingId };
}

function generateBody(characterId: string): string {
  return JSON.stringify({ character_id: characterId, type: 'single', platform: 'instagram', prompt: 'Morning run along the river' });
}

/** A `processing` training object as Replicate sends it, its logs padded to LOG_BYTES. */
function processingBody(trainingId: string, step: number): string {
  const bar = `flux_train_replicate:  ${Math.floor(step / 10)}%|#####     | ${step}/1000 [01:23<02:34, 1.23it/s]\n`;
  const logs = bar.repeat(Math.ceil(LOG_BYTES / bar.length));
  return JSON.stringify({
    id: trainingId, model: 'ostris/flux-dev-lora-trainer', version: 'fakeversion', status: 'processing', logs, output: null, error: null,
    input: { steps: 1000 }, created_at: new Date().toISOString(), started_at: new Date().toISOString(), urls: {},
  });
}

function signer(secret: string): (id: string, timestamp: string, body: string) => string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return (id, timestamp, body) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

async function webhookLoad(server: BenchApi, fake: FakeReplicate, trainingId: string, opts: LoadOptions): Promise<Measurement> {
  const sign = signer(fake.secret);
  let step = 0;
  return measure(
    {
      label: 'POST /webhooks/replicate/trainings',
      url: `${server.baseUrl}/webhooks/replicate/trainings`,
      method: 'POST',
      setupRequest: (req) => {
        step = (step % 989) + 1;
        const body = processingBody(trainingId, step);
        const id = `msg_${randomUUID()}`;
        const timestamp = String(Math.floor(Date.now() / 1000));
        return { ...req, body, headers: { ...req.headers, 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': sign(id, timestamp, body) } };
      },
    },
    opts,
  );
}

/** Queues `count` image jobs for a character and times the worker's drain of them. */
async function drain(api: ApiClient, owner: Account, characterId: string, count: number): Promise<number> {
  const started = Date.now();
  const jobs: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post<{ job: { id: string } }>('/content/generate', JSON.parse(generateBody(characterId)), { token: owner.token, expect: 201 });
    jobs.push(res.body.job.id);
  }
  const last = jobs[jobs.length - 1];
  await until(async () => {
    const statuses = await Promise.all([jobs[0], last].map(async (id) => (await api.get<{ job: { status: string } }>(`/jobs/${id}`, { token: owner.token })).body.job.status));
    return statuses.every((s) => s === 'completed');
  }, `${count} image jobs`, 120_000);
  return count / ((Date.now() - started) / 1000);
}

export const lora: Scenario = {
  name: 'lora',
  description: 'LoRA: generate with vs without a ready LoRA, signed training webhooks, image jobs with vs without a LoRA',
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'lora');
    const fake = await startFakeReplicate({ token: 'bench-replicate-token', training: { tickMs: 0, ticksToFinish: 3 } });
    let server: BenchApi | undefined;
    let worker: BenchProcess | undefined;
    try {
      const env = {
        ...backing.env, ...LOAD_ENV, LORA_PROVIDER: 'replicate', REPLICATE_API_URL: fake.url, REPLICATE_API_TOKEN: 'bench-replicate-token',
        REPLICATE_WEBHOOK_SECRET: fake.secret, LORA_POLL_INTERVAL_MS: '600000', LORA_CHECK_INTERVAL_MS: '200',
      };
      server = await startApi(env);
      // The worker creates the trainings, so it names the webhook address: the API's.
      worker = await startWorker({ ...env, PUBLIC_URL: `http://127.0.0.1:${server.port}` });
      const rss = new RssMonitor(server.pid);
      const api = new ApiClient(server.baseUrl);
      const setup = await seed(api, fake);
      console.log(`  seeded workspace ${setup.owner.workspaceId}: a ready LoRA (${setup.withLora}), a training running at the fake (${setup.runningTraining}), a character without`);

      // A warm-up batch each first: the first jobs of a worker pay for its caches and the JIT.
      await drain(api, setup.owner, setup.withLora, DRAIN_BATCH / 4);
      await drain(api, setup.owner, setup.withoutLora, DRAIN_BATCH / 4);
      const drains: Record<'with' | 'without', number[]> = { with: [], without: [] };
      // Each round starts with the other batch, so neither always meets the worker just after a pause.
      for (let round = 0; round < DRAIN_ROUNDS; round++) {
        const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
        for (const which of order) drains[which].push(await drain(api, setup.owner, which === 'with' ? setup.withLora : setup.withoutLora, DRAIN_BATCH));
      }
      await worker.stop();
      worker = undefined;

      const opts: LoadOptions = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
      const bearer = { authorization: `Bearer ${setup.owner.token}`, 'content-type': 'application/json' };
      const [plain, withLora] = await measureInTurns(
        [
          { label: 'POST /content/generate (no LoRA)', url: `${server.baseUrl}/content/generate`, method: 'POST', headers: bearer, body: generateBody(setup.withoutLora) },
          { label: 'POST /content/generate (ready LoRA)', url: `${server.baseUrl}/content/generate`, method: 'POST', headers: bearer, body: generateBody(setup.withLora) },
        ],
        opts,
        settings.rounds,
      );
      const webhooks = await webhookLoad(server, fake, setup.runningTraining, opts);
      const peak = rss.peakMb();
      rss.stop();
      if (server.exited) throw new Error(`the API exited during the lora scenario:\n${server.output.slice(-30).join('\n')}`);

      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const drainRows = [
        ['image jobs, ready LoRA', drains.with.map((x) => x.toFixed(1)).join(', '), mean(drains.with).toFixed(1)],
        ['image jobs, no LoRA', drains.without.map((x) => x.toFixed(1)).join(', '), mean(drains.without).toFixed(1)],
      ];
      const summary = [
        `worker drain of ${DRAIN_BATCH} queued image jobs per round, alternating (jobs/s; the job side of the LoRA lookup):`,
        table(['batch', 'per round', 'mean'], drainRows, [false, true, true]),
        `with/without: ${((100 * mean(drains.with)) / mean(drains.without)).toFixed(0)}%`,
        `webhook body ${(processingBody('x', 500).length / 1024).toFixed(1)} KiB; ${webhooks.rps.toFixed(0)} webhooks/s at ${webhooks.connections} connections, p99 ${webhooks.p99} ms${isClean(webhooks) ? '' : ' (NOT CLEAN)'}; API peak RSS ${peak.sampled.toFixed(0)} MB`,
      ].join('\n');
      const targets: Target[] = [
        ratioTarget(withLora, plain, 0.95, 'POST /content/generate with a ready LoRA >= 95% of the same route without'),
        { goal: 'training webhooks answered 200, signatures verified', actual: `${webhooks.requests} sent, ${webhooks.non2xx} not 2xx`, pass: isClean(webhooks) },
      ];
      return { measurements: [plain, withLora, webhooks], targets, summary };
    } catch (err) {
      for (const [name, proc] of [['API', server], ['worker', worker]] as const) {
        if (proc) writeFileSync(`/tmp/lora-bench-${name}.log`, proc.output.join(''));
      }
      throw err;
    } finally {
      await worker?.stop();
      await server?.stop();
      await fake.close();
      await backing.release();
    }
  },
};
