import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeReplicate, type FakeReplicate } from '../../../../../test/fakes/replicate-server.js';
import { AppError } from '../../../../core/index.js';
import type { TrainingEvent } from '../../application/ports/training-webhooks.js';
import { ReplicateLoraTrainer } from './replicate-trainer.js';
import { ReplicateTrainingWebhooks, type ReplicateWebhooksOptions } from './replicate-webhooks.js';

const TOKEN = 'r8_webhook_token';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const NOW_MS = 1_800_000_000_000;
const NOW = NOW_MS / 1000;
let fake: FakeReplicate;

beforeAll(async () => {
  fake = await startFakeReplicate({ token: TOKEN, webhookSecret: SECRET, training: { tickMs: 0, ticksToFinish: 2 } });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setMode({ kind: 'ok' });
});

function webhooks(over: Partial<ReplicateWebhooksOptions> = {}): ReplicateTrainingWebhooks {
  return new ReplicateTrainingWebhooks({ baseUrl: fake.url, token: TOKEN, secret: SECRET, now: () => NOW_MS, retry: { retries: 0 }, ...over });
}

function sign(secret: string, id: string, timestamp: number | string, body: Buffer | string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

const TRAINING = { id: 'zz4ibbonubfz7carwiefibzgga', status: 'processing', logs: 'flux_train_replicate:  45%|████▌     | 450/1000 [00:45<00:55]', destination: 'acme/persona-ws' };
const BODY = Buffer.from(JSON.stringify(TRAINING));

function headers(over: Record<string, string | string[] | undefined> = {}, body: Buffer = BODY) {
  const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  return { 'webhook-id': id, 'webhook-timestamp': String(NOW), 'webhook-signature': sign(SECRET, id, NOW, body), ...over };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const outcome = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(outcome instanceof AppError)) throw new Error(`expected an AppError, got ${String(outcome)}`);
  return outcome;
}

describe('ReplicateTrainingWebhooks.verify', () => {
  it('accepts a signed delivery and reads the training it carries', async () => {
    await expect(webhooks().verify(headers(), BODY)).resolves.toEqual({
      deliveryId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      providerTrainingId: TRAINING.id,
      state: { status: 'processing', progress: 45 },
    });
  });

  it('accepts any matching signature while the secret rotates', async () => {
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const h = headers();
    const rotated = `${sign(other, h['webhook-id'], NOW, BODY)} v2,${randomBytes(32).toString('base64')} ${h['webhook-signature']}`;
    await expect(webhooks().verify({ ...h, 'webhook-signature': rotated }, BODY)).resolves.toMatchObject({ providerTrainingId: TRAINING.id });
  });

  it('reads header names in any case', async () => {
    const h = headers();
    const upper = { 'Webhook-Id': h['webhook-id'], 'Webhook-Timestamp': h['webhook-timestamp'], 'Webhook-Signature': h['webhook-signature'] };
    await expect(webhooks().verify(upper, BODY)).resolves.toMatchObject({ deliveryId: h['webhook-id'] });
  });

  it('refuses a forged signature with a message that echoes nothing', async () => {
    const forged = sign(`whsec_${randomBytes(32).toString('base64')}`, 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', NOW, BODY);
    const err = await refusal(webhooks().verify(headers({ 'webhook-signature': forged }), BODY));
    expect(err.code).toBe('unauthorized');
    expect(err.message).toBe('The webhook signature could not be verified.');
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain(forged.slice(3, 20));
  });

  it('refuses a body changed after signing', async () => {
    const changed = Buffer.from(JSON.stringify({ ...TRAINING, status: 'succeeded', output: { weights: 'https://evil.example/w.tar' } }));
    expect((await refusal(webhooks().verify(headers(), changed))).code).toBe('unauthorized');
  });

  it('refuses a signature made for another delivery id or timestamp', async () => {
    const h = headers();
    expect((await refusal(webhooks().verify({ ...h, 'webhook-id': 'msg_other' }, BODY))).code).toBe('unauthorized');
    expect((await refusal(webhooks().verify({ ...h, 'webhook-timestamp': String(NOW - 1) }, BODY))).code).toBe('unauthorized');
  });

  it.each([
    ['stale', -301],
    ['future', 301],
  ])('refuses a %s timestamp beyond the tolerance, even when signed', async (_what, offset) => {
    const h = headers({ 'webhook-timestamp': String(NOW + offset), 'webhook-signature': sign(SECRET, 'msg_1', NOW + offset, BODY), 'webhook-id': 'msg_1' });
    expect((await refusal(webhooks().verify(h, BODY))).code).toBe('unauthorized');
  });

  it('accepts a timestamp within the tolerance either way', async () => {
    for (const offset of [-299, 299]) {
      const h = headers({ 'webhook-timestamp': String(NOW + offset), 'webhook-signature': sign(SECRET, 'msg_1', NOW + offset, BODY), 'webhook-id': 'msg_1' });
      await expect(webhooks().verify(h, BODY)).resolves.toMatchObject({ deliveryId: 'msg_1' });
    }
  });

  it('honours a configured tolerance', async () => {
    const h = headers({ 'webhook-timestamp': String(NOW - 61), 'webhook-signature': sign(SECRET, 'msg_1', NOW - 61, BODY), 'webhook-id': 'msg_1' });
    expect((await refusal(webhooks({ toleranceSeconds: 60 }).verify(h, BODY))).code).toBe('unauthorized');
  });

  it.each([
    ['no webhook-id', { 'webhook-id': undefined }],
    ['no timestamp', { 'webhook-timestamp': undefined }],
    ['no signature', { 'webhook-signature': undefined }],
    ['an empty signature', { 'webhook-signature': '' }],
    ['a timestamp that is not a number', { 'webhook-timestamp': `${NOW}.5` }],
    ['a repeated webhook-id', { 'webhook-id': ['msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'] }],
    ['a signature of another scheme only', { 'webhook-signature': 'v1a,abc' }],
  ])('refuses a delivery with %s', async (_what, over) => {
    expect((await refusal(webhooks().verify(headers(over), BODY))).code).toBe('unauthorized');
  });

  it('checks the signature before reading the body', async () => {
    const junk = Buffer.from('not json at all');
    expect((await refusal(webhooks().verify(headers({ 'webhook-signature': 'v1,AAAA' }), junk))).code).toBe('unauthorized');
  });

  it.each([
    ['not JSON', Buffer.from('{"id": ')],
    ['JSON that is not a training', Buffer.from('{"hello":"world"}')],
    ['a training with an unknown status', Buffer.from('{"id":"abc","status":"sleeping"}')],
  ])('calls a signed body that is %s a validation failure', async (_what, body) => {
    expect((await refusal(webhooks().verify(headers({}, body), body))).code).toBe('validation_failed');
  });

  it('fetches the secret once when none is configured', async () => {
    const w = webhooks({ secret: undefined });
    await w.verify(headers(), BODY);
    await w.verify(headers(), BODY);
    const fetches = fake.requestsTo('/v1/webhooks/default/secret', 'GET');
    expect(fetches).toHaveLength(1);
    expect(fetches[0].authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('does not keep a failed secret fetch', async () => {
    const w = webhooks({ secret: undefined });
    fake.setMode({ kind: 'http_error', status: 503, times: 1, path: '/v1/webhooks/default/secret' });
    const err = await refusal(w.verify(headers(), BODY));
    expect(err.code).toBe('upstream_failed');
    await expect(w.verify(headers(), BODY)).resolves.toMatchObject({ providerTrainingId: TRAINING.id });
    expect(fake.requestsTo('/v1/webhooks/default/secret', 'GET')).toHaveLength(2);
  });

  it('cannot fetch the secret without a token', async () => {
    const err = await refusal(webhooks({ secret: undefined, token: undefined }).verify(headers(), BODY));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'not_configured' });
  });
});

describe('the fake trainings\u2019 webhooks', () => {
  let receiver: Server;
  let received: { outcome: TrainingEvent | string; webhookId: string }[];
  let url: string;
  // The real clock: the fake signs with the time it sends at.
  const verifier = () => new ReplicateTrainingWebhooks({ baseUrl: fake.url, token: TOKEN });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const webhookId = String(req.headers['webhook-id']);
        verifier()
          .verify(req.headers, Buffer.concat(chunks))
          .then((event) => received.push({ outcome: event, webhookId }))
          .catch((err: AppError) => received.push({ outcome: err.code, webhookId }))
          .finally(() => res.writeHead(204).end());
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise((r) => receiver.close(r)));
  beforeEach(() => {
    received = [];
    Object.assign(fake.trainingOptions, { dropWebhooks: false, duplicateWebhooks: false, forgeSignature: false, staleTimestamp: false });
  });

  async function training(): Promise<string> {
    const images = Array.from({ length: 3 }, (_, i) => ({ name: `00${i + 1}`, bytes: Buffer.from(`img ${i}`), contentType: 'image/png', caption: 'a photo of ZARA_K7' }));
    const trainer = new ReplicateLoraTrainer({ baseUrl: fake.url, token: TOKEN, timeoutMs: 5_000, trainers: { 'flux-dev': 'ostris/flux-dev-lora-trainer', sdxl: 'stability-ai/sdxl' }, webhookUrl: url });
    const req = { loraId: 'lora_1', workspaceId: 'ws_hooks', characterId: 'char_1', baseModel: 'flux-dev' as const, steps: 1000, rank: 16, triggerWord: 'ZARA_K7', images };
    const { providerTrainingId } = await trainer.start(req);
    await fake.webhooksSettled();
    return providerTrainingId;
  }

  it('are verified by the adapter, start to end', async () => {
    const id = await training();
    await fake.finish(id);
    await fake.webhooksSettled();
    expect(received.map((r) => r.outcome)).toEqual([
      { deliveryId: expect.any(String), providerTrainingId: id, state: { status: 'starting', progress: null } },
      { deliveryId: expect.any(String), providerTrainingId: id, state: { status: 'processing', progress: 50 } },
      { deliveryId: expect.any(String), providerTrainingId: id, state: { status: 'succeeded', weights: expect.objectContaining({ weightsUrl: `${fake.url}/files/${id}/trained_model.tar` }) } },
    ]);
    expect(fake.webhookDeliveries.filter((d) => d.trainingId === id).map((d) => [d.event, d.status])).toEqual([
      ['start', 204],
      ['logs', 204],
      ['completed', 204],
    ]);
  });

  it('are refused when forged or stale', async () => {
    const id = await training();
    received = [];
    fake.trainingOptions.forgeSignature = true;
    await fake.advance(id);
    fake.trainingOptions.forgeSignature = false;
    await fake.sendWebhook(id, { staleTimestamp: true });
    expect(received.map((r) => r.outcome)).toEqual(['unauthorized', 'unauthorized']);
  });

  it('come twice with one delivery id when duplicated, and not at all when dropped', async () => {
    const id = await training();
    received = [];
    fake.trainingOptions.duplicateWebhooks = true;
    await fake.advance(id);
    expect(received).toHaveLength(2);
    expect(received[0].webhookId).toBe(received[1].webhookId);
    fake.trainingOptions.duplicateWebhooks = false;
    fake.trainingOptions.dropWebhooks = true;
    await fake.advance(id);
    expect(received).toHaveLength(2);
    expect(fake.webhookDeliveries.at(-1)).toMatchObject({ trainingId: id, event: 'completed', dropped: true, status: null });
    const resent = await fake.sendWebhook(id);
    expect(resent).toMatchObject({ event: 'completed', status: 204 });
    expect(received.at(-1)!.outcome).toMatchObject({ state: { status: 'succeeded' } });
  });
});
