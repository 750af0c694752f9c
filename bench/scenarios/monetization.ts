import { adminToken, register, setPlan } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient } from '../lib/http.js';
import { measure, measureInTurns, type LoadSpec, type Measurement } from '../lib/load.js';
import type { Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { reportProblems, startApi, startWorker, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';

/**
 * Monetization (issue 30), run as the second half of `npm run bench -- engagement`: the public redirect `GET /l/{shortcode}` against `GET /health` in turns
 * on one API (PostgreSQL + Redis), a worker flushing the counted clicks. Every request is a
 * person's click (a browser User-Agent), so each one is counted in Redis. Targets: the redirect at
 * ≥ 70 % of health's requests/s, and, once flushed, the link's click_count equal to the 302s sent.
 * Both routes warm up first (BENCH_WARMUP), the redirect on a link of its own, so the measured
 * link counts the measured clicks only.
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', OPEN_RATE_LIMIT_PER_MINUTE: '100000000', MONETIZATION_CLICK_FLUSH_MS: '500' };
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const TARGET_RATIO = 0.7;
const CRAWLER = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SHORTCODE = 'bench-link';
const EXACT_SHORTCODE = 'bench-exact';
/** The link the warm-up follows, so the measured link's count holds the measured clicks only. */
const WARM_SHORTCODE = 'bench-warm';
/** Clicks of the exactness phase: each one awaited, so the count they must make is known. */
const EXACT_CLICKS = 3000;

interface LinkPage {
  links: Array<{ id: string; shortcode: string; click_count: number }>;
}

async function seedLink(client: ApiClient): Promise<{ token: string; characterId: string; exactCharacterId: string }> {
  const admin = await adminToken(client);
  const owner = await setPlan(client, admin, await register(client, `monetization-${Date.now().toString(36)}@bench.test`), 'agency');
  const made = await client.post<{ character: { id: string } }>('/characters', { name: 'Linker', niche: 'fashion' }, { token: owner.token, expect: 201 });
  const characterId = made.body.character.id;
  await client.post(`/characters/${characterId}/links`, { platform: 'instagram', destination_url: 'https://shop.example.com/p/1?ref=bench', shortcode: SHORTCODE }, { token: owner.token, expect: 201 });
  const other = await client.post<{ character: { id: string } }>('/characters', { name: 'Counter', niche: 'fashion' }, { token: owner.token, expect: 201 });
  await client.post(`/characters/${other.body.character.id}/links`, { destination_url: 'https://shop.example.com/p/2', shortcode: EXACT_SHORTCODE }, { token: owner.token, expect: 201 });
  await client.post(`/characters/${other.body.character.id}/links`, { destination_url: 'https://shop.example.com/p/3', shortcode: WARM_SHORTCODE }, { token: owner.token, expect: 201 });
  return { token: owner.token, characterId, exactCharacterId: other.body.character.id };
}

/** EXACT_CLICKS clicks, `connections` at a time, each answer awaited; answers how many were 302. */
async function clickExactly(baseUrl: string, connections: number): Promise<number> {
  let next = 0;
  let redirected = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < EXACT_CLICKS) {
      next += 1;
      const res = await fetch(`${baseUrl}/l/${EXACT_SHORTCODE}`, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
      await res.arrayBuffer();
      if (res.status === 302) redirected += 1;
    }
  }));
  return redirected;
}

/** Polls the flushed click_count of the character's link `shortcode` until it reaches `expected` or the time is up. */
async function flushedCount(client: ApiClient, token: string, characterId: string, shortcode: string, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await client.get<LinkPage>(`/characters/${characterId}/links`, { token });
    const count = page.body.links.find((l) => l.shortcode === shortcode)?.click_count ?? 0;
    if (count >= expected || Date.now() > deadline) return count;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const monetization: Scenario = {
  name: 'monetization',
  description: `monetization: GET /l/{shortcode} (counted clicks) vs GET /health in turns, target ≥ ${TARGET_RATIO * 100} %; click_count exact after the flush`,
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'monetization');
    const processes: BenchProcess[] = [];
    try {
      const env = { ...backing.env, ...LOAD_ENV };
      const api = await startApi(env);
      processes.push(api);
      processes.push(await startWorker(env));
      const client = new ApiClient(api.baseUrl);
      const seed = await seedLink(client);
      const specs: LoadSpec[] = [
        { label: 'GET /health', url: `${api.baseUrl}/health` },
        { label: 'GET /l/{shortcode}', url: `${api.baseUrl}/l/${SHORTCODE}`, headers: { 'user-agent': BROWSER } },
        // The same redirect followed by a crawler, which is not counted: the route without its counter (reported, not judged).
        { label: 'GET /l/{shortcode}, a crawler (not counted)', url: `${api.baseUrl}/l/${SHORTCODE}`, headers: { 'user-agent': CRAWLER } },
      ];
      // Both routes warm up first, as in every scenario; the redirect's warm-up follows its own link.
      for (const warm of [specs[0], { ...specs[1], url: `${api.baseUrl}/l/${WARM_SHORTCODE}` }]) {
        await measure(warm, { connections: settings.connections, durationSeconds: settings.warmupSeconds, warmupSeconds: 0 });
      }
      const opts = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: 0 };
      console.log(`  ${specs.map((s) => s.label).join(', ')} in turns: ${settings.rounds} rounds of ${(opts.durationSeconds / settings.rounds).toFixed(1)} s at ${opts.connections} connections`);
      const [health, redirect, crawler] = await measureInTurns(specs, opts, settings.rounds);
      const ratio = redirect.rps / health.rps;
      const redirects = redirect.statusCodes['302'] ?? 0;
      // autocannon drops the requests in flight when a turn ends; the service answered and counted them.
      const inFlight = settings.connections * settings.rounds;
      const loadCounted = await flushedCount(client, seed.token, seed.characterId, SHORTCODE, redirects, 30_000);
      const exactSent = await clickExactly(api.baseUrl, settings.connections);
      const exactCounted = await flushedCount(client, seed.token, seed.exactCharacterId, EXACT_SHORTCODE, exactSent, 30_000);
      const clean = redirect.errors === 0 && redirects === redirect.requests;
      const targets: Target[] = [
        {
          goal: `GET /l/{shortcode} ≥ ${TARGET_RATIO * 100} % of GET /health req/s`,
          actual: `${Math.round(100 * ratio)} %`,
          pass: clean && ratio >= TARGET_RATIO,
          note: `${redirect.rps.toFixed(0)} vs ${health.rps.toFixed(0)} req/s${clean ? '' : `; answers were not all 302: ${JSON.stringify(redirect.statusCodes)}`}`,
        },
        {
          goal: `click_count after the flush equals the ${EXACT_CLICKS} clicks answered 302 (${settings.connections} at a time)`,
          actual: `${exactCounted} / ${exactSent}`,
          pass: exactSent === EXACT_CLICKS && exactCounted === exactSent,
          note: `under the load above: ${loadCounted} counted for ${redirects} answers seen plus up to ${inFlight} dropped in flight`,
        },
      ];
      const rows: Measurement[] = [health, { ...redirect, non2xx: redirect.requests - redirects }, { ...crawler, non2xx: crawler.requests - (crawler.statusCodes['302'] ?? 0) }];
      return { measurements: rows, targets };
    } finally {
      reportProblems(processes);
      await Promise.all(processes.map((p) => p.stop()));
      await backing.release();
    }
  },
};
