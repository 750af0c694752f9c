import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { startInstagramFake, type InstagramFake } from '../../test/fakes/platforms/instagram.js';
import { platformEnv } from '../../test/fakes/platforms/index.js';
import { instagramSignature } from '../../test/fakes/platforms/webhooks.js';
import { adminToken, connectPlatform, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient } from '../lib/http.js';
import { isClean, measure, type LoadOptions, type Measurement } from '../lib/load.js';
import { httpSender, openLoop, openLoopRow, tallyAnswers } from '../lib/open-loop.js';
import { latencyTarget, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { monetization } from './monetization.js';

/**
 * Engagement (issue 30): the platforms' webhook intake, then the links' redirect (monetization.ts). Signed Instagram comment deliveries, a new
 * comment each, for a workspace whose character answers on Instagram in review mode: each is
 * verified over its raw bytes, routed to the workspace by its account, and stored with its outbox
 * event in one statement. The workers that draft the replies run elsewhere at scale; here:
 *
 * 1. Capacity: a closed loop at the bench's connections (target ≥ 300 events/s), API alone.
 * 2. Latency at a stated open-loop rate of 300 events/s (target p99 < 100 ms), timed from when each
 *    delivery was due, so a slow answer cannot hide its own cost, API alone.
 * 3. A worker then drafts the backlog (drafts/s), and the closed loop runs again beside it on the
 *    same two cores, for comparison.
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', OPEN_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'test' };
const INTAKE_RATE = 300;

interface Setup {
  owner: Account;
  characterId: string;
}

async function seed(api: ApiClient): Promise<Setup> {
  const admin = await adminToken(api);
  const owner = await setPlan(api, admin, await register(api, `engagement-${Date.now().toString(36)}@bench.test`), 'agency');
  const character = await api.post<{ character: { id: string } }>('/characters', { name: 'Luna', niche: 'gardening' }, { token: owner.token, expect: 201 });
  const characterId = character.body.character.id;
  await connectPlatform(api, owner, 'instagram');
  await api.request('PUT', `/characters/${characterId}/responder`, { token: owner.token, body: { enabled: true, platforms_enabled: ['instagram'], mode: 'review' } });
  return { owner, characterId };
}

/** A signed comments delivery for a new comment: its id never seen before, so each one is stored. */
function commentDelivery(fake: InstagramFake, n: number): { body: string; headers: Record<string, string> } {
  const accountId = fake.options.accountId!;
  const id = `1790${Date.now()}${String(n).padStart(7, '0')}`;
  const body = JSON.stringify({
    object: 'instagram',
    entry: [{ id: accountId, time: Math.floor(Date.now() / 1000), changes: [{ field: 'comments', value: { id, text: `Love this garden! number ${n}`, from: { id: `fan_${n % 500}`, username: `fan${n % 500}` }, media: { id: 'media_1', media_product_type: 'FEED' } } }] }],
  });
  return { body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': instagramSignature(fake.options.clientSecret, body) } };
}

async function intakeCapacity(server: BenchApi, fake: InstagramFake, opts: LoadOptions, counter: { n: number }): Promise<Measurement> {
  return measure(
    {
      label: 'POST /webhooks/instagram (closed loop)',
      url: `${server.baseUrl}/webhooks/instagram`,
      method: 'POST',
      setupRequest: (req) => {
        const d = commentDelivery(fake, counter.n++);
        return { ...req, body: d.body, headers: { ...req.headers, ...d.headers } };
      },
    },
    opts,
  );
}

async function intakeLatency(server: BenchApi, fake: InstagramFake, settings: BenchSettings, counter: { n: number }): Promise<Measurement> {
  const sender = httpSender(server.baseUrl, () => {
    const d = commentDelivery(fake, counter.n++);
    return { method: 'POST', path: '/webhooks/instagram', headers: d.headers, body: d.body };
  });
  try {
    await openLoop(INTAKE_RATE, Math.round(INTAKE_RATE * settings.warmupSeconds), sender.send);
    const run = await openLoop(INTAKE_RATE, Math.round(INTAKE_RATE * settings.durationSeconds), sender.send);
    const answers = tallyAnswers(run.sent);
    return openLoopRow(`POST /webhooks/instagram at ${INTAKE_RATE}/s (open loop)`, run, answers.times, answers);
  } finally {
    sender.close();
  }
}

/** Stored messages whose responder event is not handled yet (the drafts still to write). */
async function undrafted(databaseUrl: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const res = await db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'engagement.message_received' AND done_at IS NULL`);
    return res.rows[0].n as number;
  } finally {
    await db.end();
  }
}

/** Starts the worker on the backlog the intake left and counts its drafts over a window (the backlog may outlast it). */
async function drain(env: Record<string, string>, databaseUrl: string, windowSeconds: number): Promise<{ worker: BenchProcess; drafts: number; seconds: number; left: number }> {
  const worker = await startWorker(env);
  const before = await undrafted(databaseUrl);
  const started = Date.now();
  await new Promise((r) => setTimeout(r, windowSeconds * 1000));
  const left = await undrafted(databaseUrl);
  return { worker, drafts: before - left, seconds: (Date.now() - started) / 1000, left };
}

/** Comments stored for the workspace, read from the API as its owner would. */
async function storedComments(api: ApiClient, setup: Setup): Promise<number> {
  const res = await api.get<{ total: number }>(`/characters/${setup.characterId}/conversations?page_size=1`, { token: setup.owner.token });
  return res.body.total;
}

/** The intake half of the scenario, on its own backing. */
const intake = {
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'engagement');
    const fake = await startInstagramFake();
    let server: BenchApi | undefined;
    let worker: BenchProcess | undefined;
    try {
      const env = { ...backing.env, ...LOAD_ENV, ...platformEnv({ instagram: fake }), OUTBOX_DISPATCH_IN_API: 'false' };
      server = await startApi(env);
      // A worker sends the sign-up mail (the outbox) while seeding, then stops before the intake is measured.
      const seeder = await startWorker(env);
      const api = new ApiClient(server.baseUrl);
      const setup = await seed(api).finally(() => seeder.stop());
      const opts: LoadOptions = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
      const counter = { n: 0 };
      // The API's intake alone: the workers that draft replies run elsewhere at scale, not on the API's cores.
      const capacity = await intakeCapacity(server, fake, opts, counter);
      const latency = await intakeLatency(server, fake, settings, counter);
      const drained = await drain(env, backing.env.DATABASE_URL, settings.durationSeconds);
      worker = drained.worker;
      // For comparison: the intake with a worker drafting beside it on the same two cores.
      const shared = await intakeCapacity(server, fake, opts, counter);
      shared.label = 'POST /webhooks/instagram (closed loop, worker drafting on the same cores)';
      const conversations = await storedComments(api, setup);
      if (server.exited) throw new Error(`the API exited during the engagement scenario:\n${server.output.slice(-30).join('\n')}`);

      const summary = [
        `${counter.n} signed comment deliveries sent; ${conversations} conversations (one per commenter, 500 commenters) hold them`,
        `responder drafting (review mode, local text generator), one worker on the backlog: ${drained.drafts} drafts in ${drained.seconds.toFixed(1)} s = ${(drained.drafts / drained.seconds).toFixed(0)} drafts/s (${drained.left} still to draft)`,
      ].join('\n');
      const targets: Target[] = [
        { goal: 'webhook intake >= 300 events/s (closed loop)', actual: `${capacity.rps.toFixed(0)} events/s`, pass: isClean(capacity) && capacity.rps >= 300, note: isClean(capacity) ? undefined : 'answers were not all 2xx' },
        latencyTarget(latency, 100, `at ${INTAKE_RATE} events/s, open loop`),
      ];
      return { measurements: [capacity, latency, shared], targets, summary };
    } catch (err) {
      for (const [name, proc] of [['API', server], ['worker', worker]] as const) {
        if (proc) writeFileSync(`/tmp/engagement-bench-${name}.log`, proc.output.join(''));
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

export const engagement: Scenario = {
  name: 'engagement',
  description: 'Engagement and monetization: signed Instagram comment webhooks (capacity, and latency at 300/s open loop); GET /l/{shortcode} vs GET /health',
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const webhooks = await intake.run(settings);
    const links = await monetization.run(settings);
    return {
      measurements: [...webhooks.measurements, ...links.measurements],
      targets: [...webhooks.targets, ...links.targets],
      summary: [webhooks.summary, links.summary].filter(Boolean).join('\n'),
    };
  },
};
