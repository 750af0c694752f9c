import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FAKE_TRAINERS, startFakeReplicate, type FakeReplicate } from '../../../../../test/fakes/replicate-server.js';
import { AppError } from '../../../../core/index.js';
import type { TrainingRequest } from '../../application/ports/lora-trainer.js';
import { destinationName, parseTraining, progressFromLogs, ReplicateLoraTrainer, type ReplicateTrainerOptions } from './replicate-trainer.js';

const TOKEN = 'r8_trainer_token';
const FLUX_VERSION = FAKE_TRAINERS['ostris/flux-dev-lora-trainer'];
const SDXL = `stability-ai/sdxl:${FAKE_TRAINERS['stability-ai/sdxl']}`;
let fake: FakeReplicate;
let receiver: Server;
let webhookUrl: string;
let delays: number[];
let workspaces = 0;

beforeAll(async () => {
  fake = await startFakeReplicate({ token: TOKEN, training: { tickMs: 0, ticksToFinish: 3 } });
  // The trainings this spec starts send their events here; the webhook spec checks what they carry.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/webhooks/replicate/trainings`;
});
afterAll(async () => {
  await fake.webhooksSettled();
  await fake.close();
  await new Promise((r) => receiver.close(r));
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setMode({ kind: 'ok' });
  delays = [];
});

function trainer(over: Partial<ReplicateTrainerOptions> = {}): ReplicateLoraTrainer {
  return new ReplicateLoraTrainer({
    baseUrl: fake.url,
    token: TOKEN,
    timeoutMs: 5_000,
    trainers: { 'flux-dev': 'ostris/flux-dev-lora-trainer', sdxl: SDXL },
    webhookUrl,
    retry: { retries: 2, sleep: async (ms: number) => void delays.push(ms) },
    ...over,
  });
}

/** A workspace of its own per test: destination models outlive a test in the fake. */
function request(over: Partial<TrainingRequest> = {}): TrainingRequest {
  const images = Array.from({ length: 10 }, (_, i) => {
    const name = String(i + 1).padStart(3, '0');
    return { name, bytes: Buffer.from(`image ${name}`), contentType: i % 2 ? 'image/png' : 'image/jpeg', caption: `a photo of ZARA_K7, shot ${i + 1}` };
  });
  return {
    loraId: 'lora_01HZX6FQJ5N6E7T2M3A4B5C6D7',
    workspaceId: `ws_01HZX6FQJ5N6E7T2M3A4B5C6W${++workspaces}`,
    characterId: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7',
    baseModel: 'flux-dev',
    steps: 1000,
    rank: 16,
    triggerWord: 'ZARA_K7',
    images,
    ...over,
  };
}

const seen = (method: string, path: string) => fake.requests.filter((r) => r.method === method && r.path === path);

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const outcome = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(outcome instanceof AppError)) throw new Error(`expected an AppError, got ${String(outcome)}`);
  return outcome;
}

describe('ReplicateLoraTrainer.start', () => {
  it('creates the destination once, resolves the trainer once, and starts each training with a captioned set', async () => {
    const t = trainer();
    const req = request();
    const destination = `fakeowner/${destinationName(req.workspaceId)}`;
    const first = await t.start(req);
    const second = await t.start({ ...req, loraId: 'lora_01HZX6FQJ5N6E7T2M3A4B5C6D8' });

    expect(seen('GET', '/v1/account')).toHaveLength(1);
    expect(seen('GET', `/v1/models/${destination}`)).toHaveLength(1);
    const creates = seen('POST', '/v1/models');
    expect(creates).toHaveLength(1);
    expect(creates[0].body).toEqual({ owner: 'fakeowner', name: destinationName(req.workspaceId), visibility: 'private', hardware: 'cpu', description: expect.any(String) });
    expect(seen('GET', '/v1/models/ostris/flux-dev-lora-trainer')).toHaveLength(1);

    const trainings = seen('POST', `/v1/models/ostris/flux-dev-lora-trainer/versions/${FLUX_VERSION}/trainings`);
    expect(trainings).toHaveLength(2);
    expect(trainings[0].authorization).toBe(`Bearer ${TOKEN}`);
    expect(trainings[0].body).toEqual({
      destination,
      input: { input_images: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1\/files\/fakefile\d+$/), trigger_word: 'ZARA_K7', steps: 1000, lora_rank: 16, autocaption: false },
      webhook: webhookUrl,
      webhook_events_filter: ['start', 'logs', 'completed'],
    });
    expect([first.providerTrainingId, second.providerTrainingId].every((id) => fake.trainings.has(id))).toBe(true);
    expect(first.providerTrainingId).not.toBe(second.providerTrainingId);
  });

  it('uploads a ZIP of every image with its caption, tagged with our ids', async () => {
    const req = request();
    const { providerTrainingId } = await trainer().start(req);
    const training = fake.trainings.get(providerTrainingId)!;
    expect(training.archiveError).toBeNull();
    expect(training.archive!.entries).toEqual(req.images.flatMap((img, i) => [`${img.name}.${i % 2 ? 'png' : 'jpg'}`, `${img.name}.txt`]));
    expect(Object.values(training.archive!.captions)).toEqual(req.images.map((img) => img.caption));
    expect(Object.values(training.archive!.captions).every((c) => c.includes('ZARA_K7'))).toBe(true);
    expect(training.archive!.csv).toBeNull();
    const uploadId = /\/v1\/files\/(.+)$/.exec(training.input.input_images)![1];
    expect(fake.uploads.get(uploadId)).toMatchObject({
      contentType: 'application/zip',
      metadata: { lora_id: req.loraId, workspace_id: req.workspaceId, character_id: req.characterId },
    });
  });

  it('trains sdxl on its pinned version with its own inputs and a captions CSV', async () => {
    const req = request({ baseModel: 'sdxl', steps: 1200, rank: 32 });
    const { providerTrainingId } = await trainer().start(req);
    expect(fake.requestsTo('/v1/models/stability-ai/sdxl', 'GET')).toHaveLength(0);
    const [create] = seen('POST', `/v1/models/stability-ai/sdxl/versions/${FAKE_TRAINERS['stability-ai/sdxl']}/trainings`);
    expect(create.body.input).toEqual({
      input_images: expect.any(String),
      token_string: 'ZARA_K7',
      caption_prefix: 'a photo of ZARA_K7, ',
      max_train_steps: 1200,
      lora_rank: 32,
      is_lora: true,
    });
    const archive = fake.trainings.get(providerTrainingId)!.archive!;
    expect(archive.entries.at(-1)).toBe('captions.csv');
    expect(archive.csv!.split('\n').slice(0, 3)).toEqual(['image_file,caption', '001.jpg,"a photo of ZARA_K7, shot 1"', '002.png,"a photo of ZARA_K7, shot 2"']);
  });

  it('uses the configured owner and an existing destination as they are', async () => {
    const req = request();
    const name = destinationName(req.workspaceId);
    fake.models.set(`fakeowner/${name}`, { owner: 'fakeowner', name, visibility: 'private', hardware: 'cpu', description: null, versions: [] });
    await trainer({ destinationOwner: 'fakeowner' }).start(req);
    expect(seen('GET', '/v1/account')).toHaveLength(0);
    expect(seen('GET', `/v1/models/fakeowner/${name}`)).toHaveLength(1);
    expect(seen('POST', '/v1/models')).toHaveLength(0);
  });

  it('asks for no webhook when none is configured', async () => {
    await trainer({ webhookUrl: null }).start(request());
    const [create] = fake.requestsTo('/trainings', 'POST');
    expect(Object.keys(create.body).sort()).toEqual(['destination', 'input']);
  });

  it('does not retry a training creation answered 500: a retry could start a second paid training', async () => {
    fake.setMode({ kind: 'http_error', status: 500, times: 1, path: '/trainings' });
    const err = await rejection(trainer().start(request()));
    expect(err.code).toBe('upstream_failed');
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'http_error', status: 500 });
    expect(fake.requestsTo('/trainings', 'POST')).toHaveLength(1);
  });

  it('retries a training creation answered 429 after what Retry-After asks', async () => {
    fake.setMode({ kind: 'http_error', status: 429, times: 1, retryAfter: 3, path: '/trainings' });
    const { providerTrainingId } = await trainer().start(request());
    expect(fake.trainings.has(providerTrainingId)).toBe(true);
    expect(fake.requestsTo('/trainings', 'POST')).toHaveLength(2);
    expect(delays).toEqual([3_000]);
  });

  it('looks the account up again after a failed look-up', async () => {
    const t = trainer({ retry: { retries: 0 } });
    fake.setMode({ kind: 'http_error', status: 503, times: 1, path: '/v1/account' });
    expect((await rejection(t.start(request()))).details).toMatchObject({ reason: 'http_error', status: 503 });
    await t.start(request());
    expect(seen('GET', '/v1/account')).toHaveLength(2);
  });

  it('reports a trainer model that does not exist as a configuration error', async () => {
    const err = await rejection(trainer({ trainers: { 'flux-dev': 'nobody/missing-trainer', sdxl: SDXL } }).start(request()));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'not_configured' });
    expect(fake.requestsTo('/trainings', 'POST')).toHaveLength(0);
  });

  it('refuses a trainer that is not owner/name[:version]', async () => {
    const err = await rejection(trainer({ trainers: { 'flux-dev': 'just-a-name', sdxl: SDXL } }).start(request()));
    expect(err.details).toMatchObject({ reason: 'not_configured' });
  });

  it('refuses to start without a token, asking nothing', async () => {
    const err = await rejection(trainer({ token: undefined }).start(request()));
    expect(err.details).toMatchObject({ reason: 'not_configured' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('ReplicateLoraTrainer.status and cancel', () => {
  it('follows a training from starting through its progress to its weights', async () => {
    const t = trainer();
    const req = request();
    const { providerTrainingId: id } = await t.start(req);
    expect(await t.status(id)).toEqual({ status: 'starting', progress: null });
    await fake.advance(id);
    expect(await t.status(id)).toEqual({ status: 'processing', progress: 33 });
    await fake.advance(id);
    expect(await t.status(id)).toEqual({ status: 'processing', progress: 66 });
    await fake.advance(id);
    const done = fake.trainings.get(id)!;
    expect(await t.status(id)).toEqual({
      status: 'succeeded',
      weights: { weightsUrl: `${fake.url}/files/${id}/trained_model.tar`, version: done.output!.version, style: null },
    });
    expect(done.output!.version).toMatch(new RegExp(`^fakeowner/${destinationName(req.workspaceId)}:[0-9a-f]{64}$`));
    expect(seen('GET', `/v1/trainings/${id}`).every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('reports a failed training with its error', async () => {
    const t = trainer();
    const { providerTrainingId: id } = await t.start(request());
    fake.setMode({ kind: 'fail', error: 'CUDA out of memory' });
    await fake.finish(id);
    expect(await t.status(id)).toEqual({ status: 'failed', error: 'CUDA out of memory' });
  });

  it('answers null for a training Replicate does not know', async () => {
    expect(await trainer().status('nosuchtraining')).toBeNull();
  });

  it('reports other failures of the status request', async () => {
    fake.setMode({ kind: 'http_error', status: 500, times: 3 });
    const err = await rejection(trainer().status('faketrain1'));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'http_error', status: 500 });
  });

  it('cancels a running training at Replicate', async () => {
    const t = trainer();
    const { providerTrainingId: id } = await t.start(request());
    await fake.advance(id);
    await t.cancel(id);
    const [cancel] = seen('POST', `/v1/trainings/${id}/cancel`);
    expect(cancel.authorization).toBe(`Bearer ${TOKEN}`);
    expect(await t.status(id)).toEqual({ status: 'canceled' });
  });

  it('never throws from cancel', async () => {
    await expect(trainer().cancel('nosuchtraining')).resolves.toBeUndefined();
    fake.setMode({ kind: 'http_error', status: 503, times: 5 });
    await expect(trainer().cancel('faketrain1')).resolves.toBeUndefined();
    await expect(trainer({ token: undefined }).cancel('faketrain1')).resolves.toBeUndefined();
    expect(fake.requestsTo('/cancel', 'POST').length).toBeGreaterThanOrEqual(3);
  });
});

describe('parseTraining', () => {
  const training = (over: Record<string, unknown>) => ({ id: 'zz4ibbonubfz7carwiefibzgga', status: 'processing', logs: '', destination: 'acme/persona-ws', ...over });

  it('reads progress from the last progress bar of the logs', () => {
    const logs = 'Loading model\nflux_train_replicate:  10%|█         | 100/1000 [00:10<01:30]\rflux_train_replicate:  45%|████▌     | 450/1000 [00:45<00:55]';
    expect(parseTraining(training({ logs })).state).toEqual({ status: 'processing', progress: 45 });
    expect(parseTraining(training({ status: 'starting', logs: '' })).state).toEqual({ status: 'starting', progress: null });
  });

  it.each([
    ['a finished bar before the training ends', '| 1000/1000 [', 99],
    ['a bar past its total', '| 1200/1000 [', 99],
    ['a zero total', '| 0/0 [', null],
    ['no bar, only dates and fractions', 'saved 2026/11 checkpoint, epoch 1/3', null],
    ['logs that are not text', 42, null],
  ])('reads %s', (_what, logs, progress) => {
    expect(parseTraining(training({ logs })).state).toEqual({ status: 'processing', progress });
  });

  it.each([
    ['owner/name:hash as it is', 'acme/persona-ws:5c7d5dc6dd8b', 'acme/persona-ws:5c7d5dc6dd8b'],
    ['a bare hash with the destination', '5c7d5dc6dd8b', 'acme/persona-ws:5c7d5dc6dd8b'],
    ['no version as null', undefined, null],
    ['something else as null', 'not a version!', null],
  ])('reads the version %s', (_what, version, expected) => {
    const state = parseTraining(training({ status: 'succeeded', output: { weights: 'https://replicate.delivery/x/trained_model.tar', version } })).state;
    expect(state).toEqual({ status: 'succeeded', weights: { weightsUrl: 'https://replicate.delivery/x/trained_model.tar', version: expected, style: null } });
  });

  it('needs the destination to complete a bare version', () => {
    const state = parseTraining(training({ status: 'succeeded', destination: undefined, output: { weights: 'https://x/w.tar', version: 'abc123' } })).state;
    expect(state).toMatchObject({ weights: { version: null } });
  });

  it('reads failures and cancellations', () => {
    expect(parseTraining(training({ status: 'failed', error: 'bad images' })).state).toEqual({ status: 'failed', error: 'bad images' });
    expect(parseTraining(training({ status: 'failed', error: null })).state).toEqual({ status: 'failed', error: 'The training failed without a reason given.' });
    expect(parseTraining(training({ status: 'failed', error: { code: 'E1' } })).state).toEqual({ status: 'failed', error: '{"code":"E1"}' });
    expect(parseTraining(training({ status: 'canceled' })).state).toEqual({ status: 'canceled' });
    expect(parseTraining(training({ status: 'aborted' })).state).toEqual({ status: 'canceled' });
  });

  it.each([
    ['null', null],
    ['a list', []],
    ['no id', { status: 'starting' }],
    ['an id that is a path', { id: '../x', status: 'starting' }],
    ['an unknown status', { id: 'abc', status: 'sleeping' }],
    ['success without weights', { id: 'abc', status: 'succeeded', output: {} }],
    ['success with weights that are not a URL', { id: 'abc', status: 'succeeded', output: { weights: 'file:///etc/passwd' } }],
  ])('refuses %s as a bad response', (_what, data) => {
    let thrown: unknown;
    try {
      parseTraining(data);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).details).toMatchObject({ provider: 'replicate', reason: 'bad_response' });
  });
});

describe('destinationName', () => {
  it('lower-cases the workspace id and replaces what model names may not hold', () => {
    expect(destinationName('ws_01HZX6FQ')).toBe('persona-ws_01hzx6fq');
    expect(destinationName('Acme Corp/Ü.1')).toBe('persona-acme-corp--.1');
  });
});

describe('progressFromLogs', () => {
  it('reads a bar without a job name', () => {
    expect(progressFromLogs('Steps:  50%|█████     | 5/10 [00:01<00:01]')).toBe(50);
  });
});
