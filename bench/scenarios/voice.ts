import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { adminToken, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient } from '../lib/http.js';
import type { Measurement } from '../lib/load.js';
import { RssMonitor } from '../lib/memory.js';
import { httpSender, openLoop, openLoopRow, tallyAnswers, type Sent } from '../lib/open-loop.js';
import { table, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { describeSpread, sleep } from '../lib/stats.js';

/**
 * Voice and talking heads (issue 14) on the offline adapters: eSpeak NG (WebAssembly) for speech
 * and the bundled ffmpeg for talking heads. Three readings:
 *
 * 1. Local TTS throughput: `generate_speech` jobs (WAV) of known lengths run one at a time by a
 *    worker process; characters per second of each job's run time (started_at → finished_at, as
 *    the job row records it), so queueing is left out and storing the clip is in.
 * 2. Talking-head render speed: one full 720p 9:16 generation of a ~20 s script through the worker;
 *    the video's seconds over the job's run time (which also holds the speech and the content
 *    item), target ≥ 1× real time.
 * 3. The API's answer time for `POST …/voice/preview` in an open loop at PREVIEW_RATE/s: each
 *    preview synthesises speech inside the API process, so the rate is kept to what a studio's
 *    users would click, not a capacity test.
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', VOICE_PROVIDER: 'local', TALKING_HEAD_PROVIDER: 'local' };
const SPEECH_LENGTHS = [200, 1000, 3000];
const SPEECH_ROUNDS = 2;
const PREVIEW_RATE = 2;
const PREVIEW_SECONDS = 20;
const PREVIEW_ALONE = 10;
const PREVIEW_TEXT = 'Good morning! Here is a short preview of the new persona’s voice, just to hear how it sounds.';
const TALK_SCRIPT = [
  'Hi everyone, welcome back to the channel.',
  'Today I am taking you along on a slow morning walk by the river,',
  'where the mist lifts off the water and the city is still quiet.',
  'Grab a coffee, settle in, and tell me in the comments where your favourite morning walk is.',
  'See you tomorrow for the next one.',
].join(' ');
const JOB_TIMEOUT_MS = 180_000;

interface JobWire {
  id: string;
  status: string;
  started_at: string | null;
  finished_at: string | null;
  error: { code: string; message: string } | null;
}

/** A script of exactly `length` characters, made of ordinary sentences. */
function scriptOf(length: number): string {
  const sentence = 'The morning light falls on the quiet harbour while the boats wait for the tide. ';
  return sentence.repeat(Math.ceil(length / sentence.length)).slice(0, length).trimEnd().padEnd(length, '.');
}

async function faceImage(): Promise<Buffer> {
  return sharp({ create: { width: 720, height: 1280, channels: 3, background: { r: 214, g: 176, b: 150 } } })
    .composite([{ input: Buffer.from('<svg width="720" height="1280"><ellipse cx="360" cy="560" rx="220" ry="290" fill="#e9c3a5"/></svg>'), top: 0, left: 0 }])
    .png()
    .toBuffer();
}

async function seed(api: ApiClient): Promise<{ owner: Account; characterId: string }> {
  const admin = await adminToken(api);
  const owner = await setPlan(api, admin, await register(api, `voice-${Date.now().toString(36)}@bench.test`), 'agency');
  await api.post(`/admin/workspaces/${owner.workspaceId}/credits`, { amount: 1_000_000, reason: 'bench: voice scenario' }, { token: admin });
  const created = await api.post<{ character: { id: string } }>('/characters', { name: 'Speaker', niche: 'travel', talking_head_enabled: true }, { token: owner.token, expect: 201 });
  const characterId = created.body.character.id;
  const form = new FormData();
  form.append('file', new Blob([await faceImage()], { type: 'image/png' }), 'face.png');
  const res = await fetch(`${api.baseUrl}/characters/${characterId}/reference-images`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
  if (res.status !== 201) throw new Error(`reference image answered ${res.status}: ${await res.text()}`);
  return { owner, characterId };
}

async function jobEnded(api: ApiClient, owner: Account, jobId: string): Promise<JobWire> {
  const deadline = Date.now() + JOB_TIMEOUT_MS;
  for (;;) {
    const job = (await api.get<{ job: JobWire }>(`/jobs/${jobId}`, { token: owner.token })).body.job;
    if (job.status === 'completed' || job.status === 'failed') {
      if (job.status === 'failed') throw new Error(`job ${jobId} failed: ${job.error?.code} ${job.error?.message}`);
      return job;
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} not ended in ${JOB_TIMEOUT_MS / 1000} s`);
    await sleep(200);
  }
}

const runSeconds = (job: JobWire): number => (Date.parse(job.finished_at!) - Date.parse(job.started_at!)) / 1000;

interface SpeechRun {
  characters: number;
  runSeconds: number;
  audioSeconds: number;
}

/** One generate_speech job per length per round, one at a time, so each has the worker to itself. */
async function speechThroughput(api: ApiClient, owner: Account, characterId: string): Promise<SpeechRun[]> {
  const runs: SpeechRun[] = [];
  for (let round = 0; round < SPEECH_ROUNDS; round++) {
    for (const length of SPEECH_LENGTHS) {
      const res = await api.post<{ audio: { id: string }; job: { id: string } }>(`/characters/${characterId}/voice/generate`, { text: scriptOf(length), format: 'wav' }, { token: owner.token, expect: 202 });
      const job = await jobEnded(api, owner, res.body.job.id);
      const clip = await api.get<{ audio: { duration_seconds: number } }>(`/characters/${characterId}/voice/audio/${res.body.audio.id}`, { token: owner.token });
      runs.push({ characters: length, runSeconds: runSeconds(job), audioSeconds: clip.body.audio.duration_seconds });
    }
  }
  return runs;
}

interface TalkRun {
  videoSeconds: number;
  runSeconds: number;
}

async function talkingHeadSpeed(api: ApiClient, owner: Account, characterId: string): Promise<TalkRun> {
  const res = await api.post<{ generation: { id: string }; job: { id: string } }>(`/characters/${characterId}/talking-head/generate`, { script: TALK_SCRIPT, aspect_ratio: '9:16' }, { token: owner.token, expect: 202 });
  const job = await jobEnded(api, owner, res.body.job.id);
  const g = await api.get<{ generation: { duration_seconds: number } }>(`/talking-head/${res.body.generation.id}`, { token: owner.token });
  return { videoSeconds: g.body.generation.duration_seconds, runSeconds: runSeconds(job) };
}

/** Previews one after another: a single preview's own time, without the open loop's queueing. */
async function previewAlone(api: ApiClient, owner: Account, characterId: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < PREVIEW_ALONE; i++) {
    const t0 = performance.now();
    await api.post(`/characters/${characterId}/voice/preview`, { text: PREVIEW_TEXT }, { token: owner.token, expect: 201 });
    times.push(performance.now() - t0);
  }
  return times;
}

async function previewLatency(server: BenchApi, owner: Account, characterId: string): Promise<Measurement> {
  const body = JSON.stringify({ text: PREVIEW_TEXT });
  const headers = { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' };
  const sender = httpSender(server.baseUrl, () => ({ method: 'POST', path: `/characters/${characterId}/voice/preview`, headers, body }), 16);
  try {
    let n = 0;
    const send = (s: Sent) => sender.send(s, n++);
    await openLoop(PREVIEW_RATE, PREVIEW_RATE * 3, send);
    const run = await openLoop(PREVIEW_RATE, PREVIEW_RATE * PREVIEW_SECONDS, send);
    const answers = tallyAnswers(run.sent);
    return openLoopRow(`POST …/voice/preview at ${PREVIEW_RATE}/s (201)`, run, answers.times, answers);
  } finally {
    sender.close();
  }
}

function summarise(speech: SpeechRun[], talk: TalkRun, preview: Measurement, alone: number[], rssMb: number): { summary: string; targets: Target[] } {
  const rows = SPEECH_LENGTHS.map((length) => {
    const mine = speech.filter((r) => r.characters === length);
    const cps = mine.map((r) => r.characters / r.runSeconds);
    return [`${length}`, mine.map((r) => r.runSeconds.toFixed(2)).join(', '), cps.map((c) => c.toFixed(0)).join(', '), (mine[0].audioSeconds).toFixed(1)];
  });
  const totalChars = speech.reduce((a, r) => a + r.characters, 0);
  const totalRun = speech.reduce((a, r) => a + r.runSeconds, 0);
  const cps = totalChars / totalRun;
  const speed = talk.videoSeconds / talk.runSeconds;
  const summary = [
    `local TTS (eSpeak NG, WAV), generate_speech jobs on the worker, ${SPEECH_ROUNDS} rounds (run time = job started_at → finished_at):`,
    table(['characters', 'run s', 'chars/s', 'audio s'], rows, [true, true, true, true]),
    `all: ${totalChars} characters in ${totalRun.toFixed(2)} s of job run time = ${cps.toFixed(0)} characters/s (${(cps / 15).toFixed(1)}× the 15 characters/s of speech)`,
    `talking head, local renderer, 720×1280 (9:16), script ${TALK_SCRIPT.length} characters: ${talk.videoSeconds.toFixed(1)} s of video in ${talk.runSeconds.toFixed(1)} s of job run time (speech + video + content item) = ${speed.toFixed(2)}× real time`,
    `preview open loop: ${preview.requests} requests at ${PREVIEW_RATE}/s, text ${PREVIEW_TEXT.length} characters: p50 ${preview.p50} ms, p99 ${preview.p99} ms; API peak RSS ${rssMb.toFixed(0)} MB`,
    `preview one at a time (${alone.length} in a row, no other load): ${describeSpread(alone)}; above ${(1000 / PREVIEW_RATE).toFixed(0)} ms each, the open loop queues`,
  ].join('\n');
  const targets: Target[] = [
    { goal: 'talking head 720p 9:16 rendered >= 1x real time (video s / job run s)', actual: `${speed.toFixed(2)}x`, pass: speed >= 1 },
    { goal: 'local TTS faster than real time (chars/s > 15)', actual: `${cps.toFixed(0)} chars/s`, pass: cps > 15, note: 'the issue asks for the figure; 15 chars/s is speech itself' },
    {
      goal: `POST …/voice/preview at ${PREVIEW_RATE}/s: every answer 201 (p50/p99 reported, no bound in the issue)`,
      actual: `p50 ${preview.p50} / p99 ${preview.p99} ms`,
      pass: preview.non2xx === 0 && preview.errors === 0,
    },
  ];
  return { summary, targets };
}

export const voice: Scenario = {
  name: 'voice',
  description: 'Voice and talking heads (local adapters): TTS chars/s, talking-head render speed at 720p 9:16, preview answer time',
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'voice');
    let server: BenchApi | undefined;
    let worker: BenchProcess | undefined;
    try {
      const env = { ...backing.env, ...LOAD_ENV };
      server = await startApi(env);
      worker = await startWorker({ ...env, PUBLIC_URL: `http://127.0.0.1:${server.port}` });
      const api = new ApiClient(server.baseUrl);
      const { owner, characterId } = await seed(api);
      console.log(`  seeded workspace ${owner.workspaceId}: character ${characterId} with talking heads on and a primary image`);
      // A first short job warms the worker's synthesiser (the WebAssembly module loads once per process).
      await jobEnded(api, owner, (await api.post<{ job: { id: string } }>(`/characters/${characterId}/voice/generate`, { text: 'Warm up.', format: 'wav' }, { token: owner.token, expect: 202 })).body.job.id);
      const speech = await speechThroughput(api, owner, characterId);
      const talk = await talkingHeadSpeed(api, owner, characterId);
      await worker.stop();
      worker = undefined;

      const rss = new RssMonitor(server.pid);
      const preview = await previewLatency(server, owner, characterId);
      const alone = await previewAlone(api, owner, characterId);
      const peak = rss.peakMb();
      rss.stop();
      if (server.exited) throw new Error(`the API exited during the voice scenario:\n${server.output.slice(-30).join('\n')}`);
      const { summary, targets } = summarise(speech, talk, preview, alone, peak.sampled);
      return { measurements: [preview], targets, summary };
    } catch (err) {
      for (const [name, proc] of [['API', server], ['worker', worker]] as const) {
        if (proc) writeFileSync(`/tmp/voice-bench-${name}.log`, proc.output.join('\n'));
      }
      throw err;
    } finally {
      await worker?.stop();
      await server?.stop();
      await backing.release();
    }
  },
};
