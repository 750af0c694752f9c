import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../../../../../test/fakes/elevenlabs-server.js';
import { recordedSleep, rejection } from '../spec-fixtures.js';
import { ElevenLabsClient, type ElevenLabsOptions, type TextToSpeechBody } from './elevenlabs-client.js';

jest.setTimeout(30_000);

let fake: FakeElevenLabs;
let retry: ReturnType<typeof recordedSleep>;
beforeAll(async () => {
  fake = await startFakeElevenLabs();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  retry = recordedSleep();
});

const VOICE = '21m00Tcm4TlvDq8ikWAM';

function client(overrides: Partial<ElevenLabsOptions> = {}): ElevenLabsClient {
  return new ElevenLabsClient({ baseUrl: fake.url, apiKey: fake.apiKey, concurrency: 2, timeoutMs: 10_000, retry: { sleep: retry.sleep, random: () => 1 }, ...overrides });
}

function body(text = 'Hello there, lovely people.'): TextToSpeechBody {
  return { text, model_id: 'eleven_multilingual_v2', voice_settings: { stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true } };
}

const speak = (c: ElevenLabsClient, text?: string, signal?: AbortSignal) => c.textToSpeech(VOICE, body(text), 'pcm_22050', signal);
const ttsRequests = () => fake.requestsTo('/v1/text-to-speech/', 'POST');

/** Waits until the condition holds (the fake's counters move as requests arrive). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1000) throw new Error('condition never held');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ElevenLabsClient: refusals', () => {
  it('sends nothing without an API key', async () => {
    const err = await rejection(speak(client({ apiKey: undefined })));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { provider: 'elevenlabs', reason: 'not_configured' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('reports a refused key as unauthorized, once', async () => {
    const err = await rejection(speak(client({ apiKey: 'sk_wrong' })));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { reason: 'unauthorized', status: 401, elevenlabs_status: 'invalid_api_key' } });
    expect(ttsRequests()).toHaveLength(1);
  });

  it('fails an exhausted quota clearly and at once, without retrying', async () => {
    fake.fail('quota_exceeded', { times: 5 });
    const err = await rejection(speak(client()));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { provider: 'elevenlabs', reason: 'quota_exceeded', status: 401 } });
    expect(err.message).toMatch(/no character quota left.*exceeds your quota/);
    expect(ttsRequests()).toHaveLength(1);
    expect(retry.delays).toEqual([]);
  });
});

describe('ElevenLabsClient: waiting and retrying', () => {
  it('waits out too_many_concurrent_requests, honouring Retry-After', async () => {
    fake.fail('too_many_concurrent_requests', { times: 2, retryAfterSeconds: 2 });
    const speech = await speak(client());
    expect(speech.audio.length).toBeGreaterThan(0);
    expect(ttsRequests().map((r) => r.status)).toEqual([429, 429, 200]);
    expect(retry.delays).toEqual([2000, 2000]);
  });

  it('gives up on the account’s concurrency only after its whole wait budget', async () => {
    fake.fail('too_many_concurrent_requests', { times: 1000 });
    const err = await rejection(speak(client({ concurrencyWaitMs: 6_000 })));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { reason: 'rate_limited', status: 429 } });
    // Backoff 500, 1000, 2000, 4000 ms (capped at 5 s): the fourth wait passes the 6 s budget.
    expect(retry.delays).toEqual([500, 1000, 2000, 4000]);
    expect(ttsRequests()).toHaveLength(5);
  });

  it('retries system_busy with growing backoff, a bounded number of times', async () => {
    fake.fail('system_busy', { times: 2 });
    await speak(client());
    expect(retry.delays).toEqual([1000, 2000]);
    fake.reset();
    retry.delays.length = 0;
    fake.fail('system_busy', { times: 10 });
    const err = await rejection(speak(client({ busyRetries: 3 })));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { reason: 'busy', status: 429 } });
    expect(ttsRequests()).toHaveLength(4);
    expect(retry.delays).toEqual([1000, 2000, 4000]);
  });

  it('treats a 503 as busy too', async () => {
    fake.fail('service_unavailable', { times: 1 });
    await speak(client());
    expect(ttsRequests().map((r) => r.status)).toEqual([503, 200]);
  });
});

describe('ElevenLabsClient: concurrency and time', () => {
  it('keeps at most `concurrency` generations in flight; the rest queue and all finish', async () => {
    fake.options.concurrencyLimit = 2;
    const hold = fake.hold('/v1/text-to-speech/');
    const c = client({ concurrency: 2 });
    const calls = Array.from({ length: 5 }, (_, i) => speak(c, `Sentence number ${i + 1}.`));
    await until(() => hold.held === 2);
    expect(fake.inFlight).toBe(2);
    hold.release();
    const results = await Promise.all(calls);
    expect(results).toHaveLength(5);
    expect(fake.peakInFlight).toBe(2);
    expect(ttsRequests().map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('lets a caller who gives up while queued leave without sending anything', async () => {
    const hold = fake.hold('/v1/text-to-speech/');
    const c = client({ concurrency: 1 });
    const first = speak(c, 'First in line.');
    await until(() => hold.held === 1);
    const controller = new AbortController();
    const second = speak(c, 'Second in line.', controller.signal);
    controller.abort();
    expect(await rejection(second)).toMatchObject({ code: 'upstream_failed', details: { reason: 'aborted' } });
    hold.release();
    await expect(first).resolves.toMatchObject({ alignment: expect.anything() });
    expect(ttsRequests()).toHaveLength(1);
  });

  it('gives a longer text a longer time budget, up to the cap, and never resends a timed-out one', async () => {
    // Wide margins both ways: this runs on a shared machine where a fake's answer can take seconds.
    fake.options.latencyMs = 1500;
    const c = client({ timeoutMs: 100, perCharacterMs: 100 });
    // 9 characters: 1 s is too short for a 1.5 s answer.
    expect(await rejection(speak(c, 'Hi there.'))).toMatchObject({ code: 'upstream_failed', details: { reason: 'timeout' } });
    expect(ttsRequests()).toHaveLength(1);
    // 120 characters: 12 s is plenty.
    const long = 'A longer text takes longer to speak, so it is given longer to come back. '.repeat(2).slice(0, 120);
    await expect(speak(c, long)).resolves.toMatchObject({ audio: expect.any(Buffer) });
    // ... unless the cap says otherwise.
    const capped = client({ timeoutMs: 100, perCharacterMs: 100, maxTimeoutMs: 200 });
    expect(await rejection(speak(capped, long))).toMatchObject({ details: { reason: 'timeout' } });
  });
});
