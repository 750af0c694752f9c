import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../../config/index.js';
import { ImageGenerator, type GeneratedMedia, type ImageRequest } from '../../generation/index.js';
import { Metrics } from '../../../platform/metrics/index.js';
import { OutboundError } from '../../../platform/outbound/index.js';
import type { DataSource } from 'typeorm';
import type { Endpoint } from '../domain/endpoint.js';
import type { SelfHostedRepository } from '../infrastructure/selfhosted.repository.js';
import { MemoryRouterState } from '../infrastructure/state/memory-router-state.js';
import { GpuBackends } from './gpu-backends.js';
import { GpuBackend, type GpuImageRequest, type GpuTarget } from './ports/gpu-backend.js';
import type { EndpointSecrets } from './endpoint-secrets.js';
import { RoutingDirectory } from './routing-directory.js';
import { SelfHostedRouter } from './selfhosted-router.js';

const png = (tag: string): GeneratedMedia => ({ bytes: Buffer.from(tag), contentType: 'image/png', width: 8, height: 8 });
const request = (over: Partial<ImageRequest> = {}): ImageRequest => ({
  jobId: 'job_1', workspaceId: 'ws_1', prompt: 'a beach', width: 8, height: 8, count: 1,
  character: { id: 'char_1', name: 'Mia', niche: 'travel', stylePresets: [], primaryImageUrl: null }, ...over,
});

class Cloud extends ImageGenerator {
  readonly provider = 'replicate';
  calls = 0;
  async generate(): Promise<GeneratedMedia[]> {
    this.calls += 1;
    return [png('cloud')];
  }
}

type Behaviour = 'ok' | '500' | '400' | 'hang';

/** A backend whose answer each endpoint id decides; it records every call and aborted signal. */
class ScriptedBackend extends GpuBackend {
  readonly kind = 'a1111' as const;
  readonly calls: string[] = [];
  aborted = 0;
  constructor(private readonly behaviour: Record<string, Behaviour>) {
    super();
  }
  async generate(target: GpuTarget, req: GpuImageRequest, signal: AbortSignal): Promise<GeneratedMedia[]> {
    this.calls.push(target.id);
    switch (this.behaviour[target.id] ?? 'ok') {
      case '500':
        throw new OutboundError('http', 'answered 500', { status: 500 });
      case '400':
        throw new OutboundError('http', 'answered 400', { status: 400 });
      case 'hang':
        return new Promise((_, reject) => signal.addEventListener('abort', () => {
          this.aborted += 1;
          reject(new OutboundError('aborted', 'aborted'));
        }));
      default:
        return Array.from({ length: req.count }, () => png(target.id));
    }
  }
  async probe(): Promise<void> {}
}

function endpoint(id: string, over: Partial<Endpoint> = {}): Endpoint {
  return {
    id, name: id, url: `http://10.0.0.1/${id}`, kind: 'a1111', status: 'active', maxConcurrency: 2, capabilities: ['text_to_image', 'image_to_image'],
    apiKeySealed: null, workflow: null, createdAt: new Date(), updatedAt: new Date(), ...over,
  };
}

function setup(opts: { endpoints: Endpoint[]; behaviour?: Record<string, Behaviour>; enabled?: boolean; percentage?: number; env?: Record<string, string> }) {
  const config = new AppConfig({ SELFHOSTED_BUDGET_MS: '300', ...opts.env });
  const state = new MemoryRouterState();
  // The real directory over rows held here: `db` is what the database says now.
  const db = { routing: { enabled: opts.enabled ?? true, percentage: opts.percentage ?? 100, updatedAt: new Date() }, endpoints: opts.endpoints };
  const reads = { count: 0 };
  const repo = {
    routing: async () => {
      reads.count += 1;
      return { ...db.routing };
    },
    listEndpoints: async () => [...db.endpoints],
  } as unknown as SelfHostedRepository;
  const directory = new RoutingDirectory({ manager: null } as unknown as DataSource, repo, null as unknown as EndpointSecrets, state);
  const backend = new ScriptedBackend(opts.behaviour ?? {});
  const router = new SelfHostedRouter(config, directory, state, new GpuBackends([backend]), new Metrics());
  return { router, state, backend, cloud: new Cloud(), db, reads };
}

describe('SelfHostedRouter', () => {
  it('takes the cloud path while routing is off, or for a job outside the percentage, or with a LoRA', async () => {
    for (const opts of [{ enabled: false }, { percentage: 0 }]) {
      const { router, backend, cloud } = setup({ endpoints: [endpoint('ep_a')], ...opts });
      expect(await router.generate(request(), cloud)).toEqual({ media: [png('cloud')], route: { route: 'cloud', endpointId: null, fallbackReason: null } });
      expect(backend.calls).toEqual([]);
    }
    const { router, backend, cloud } = setup({ endpoints: [endpoint('ep_a')] });
    const lora = { id: 'lora_1', baseModel: 'flux-dev' as const, triggerWord: 'TOK', scale: 1, weightsUrl: 'https://x', style: null };
    expect((await router.generate(request({ lora }), cloud)).route.route).toBe('cloud');
    expect(backend.calls).toEqual([]);
  });

  it('draws on the least loaded capable endpoint and counts it', async () => {
    const { router, state, backend, cloud } = setup({ endpoints: [endpoint('ep_a', { capabilities: ['image_to_image'] }), endpoint('ep_b')] });
    const out = await router.generate(request(), cloud);
    expect(out).toEqual({ media: [png('ep_b')], route: { route: 'selfhosted', endpointId: 'ep_b', fallbackReason: null } });
    expect(backend.calls).toEqual(['ep_b']);
    expect(cloud.calls).toBe(0);
    expect((await state.stats(Date.now())).selfhosted).toBe(1);
    expect((await state.runtime(['ep_b'], Date.now())).get('ep_b')!.load).toBe(0);
  });

  it('retries on another endpoint after a counted failure', async () => {
    const { router, state, backend, cloud } = setup({ endpoints: [endpoint('ep_a'), endpoint('ep_b')], behaviour: { ep_a: '500' } });
    const out = await router.generate(request(), cloud);
    expect(out.route).toEqual({ route: 'selfhosted', endpointId: 'ep_b', fallbackReason: null });
    expect(backend.calls).toEqual(['ep_a', 'ep_b']);
    expect((await state.runtime(['ep_a'], Date.now())).get('ep_a')).toMatchObject({ lastError: 'answered 500', circuit: { consecutiveFailures: 1 } });
  });

  it('after 1 + retries failures falls back to the cloud once, and the third failure opens the circuit', async () => {
    const { router, state, backend, cloud } = setup({ endpoints: [endpoint('ep_a')], behaviour: { ep_a: '500' } });
    const out = await router.generate(request(), cloud);
    expect(out).toEqual({ media: [png('cloud')], route: { route: 'cloud', endpointId: null, fallbackReason: 'endpoint_failed' } });
    expect(backend.calls).toEqual(['ep_a', 'ep_a', 'ep_a']);
    expect(cloud.calls).toBe(1);
    expect((await state.runtime(['ep_a'], Date.now())).get('ep_a')!.circuit.state).toBe('open');
    // Open: the next job does not try it at all.
    expect((await router.generate(request({ jobId: 'job_2' }), cloud)).route.fallbackReason).toBe('no_eligible_endpoint');
    expect(backend.calls).toHaveLength(3);
    expect(await state.stats(Date.now())).toMatchObject({ fallbacks: 2, byReason: { endpoint_failed: 1, no_eligible_endpoint: 1 } });
  });

  it('does not count a bad request against the endpoint', async () => {
    const { router, state, cloud } = setup({ endpoints: [endpoint('ep_a')], behaviour: { ep_a: '400' } });
    expect((await router.generate(request(), cloud)).route.fallbackReason).toBe('endpoint_failed');
    expect((await state.runtime(['ep_a'], Date.now())).get('ep_a')!.circuit).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('ends a hung request at the budget, aborts it, and falls back with reason timeout', async () => {
    const { router, state, backend, cloud } = setup({ endpoints: [endpoint('ep_a')], behaviour: { ep_a: 'hang' } });
    const out = await router.generate(request(), cloud);
    expect(out.route).toEqual({ route: 'cloud', endpointId: null, fallbackReason: 'timeout' });
    expect(backend.aborted).toBe(1);
    expect(backend.calls).toEqual(['ep_a']);
    expect((await state.runtime(['ep_a'], Date.now())).get('ep_a')!).toMatchObject({ load: 0, circuit: { consecutiveFailures: 1 } });
  });

  it('skips disabled, freshly unhealthy and full endpoints', async () => {
    const { router, state, backend, cloud } = setup({ endpoints: [endpoint('ep_off', { status: 'disabled' }), endpoint('ep_sick'), endpoint('ep_full', { maxConcurrency: 1 })] });
    await state.recordHealth('ep_sick', 'unhealthy', 'probe answered 503', Date.now());
    await state.claimBest({ candidates: [{ id: 'ep_full', maxConcurrency: 1, tried: false }], now: Date.now(), leaseMs: 30_000, healthTtlMs: 30_000 });
    expect((await router.generate(request(), cloud)).route.fallbackReason).toBe('no_eligible_endpoint');
    expect(backend.calls).toEqual([]);
  });

  it('gives up at once when the job itself is cancelled, without drawing on the cloud', async () => {
    const { router, cloud } = setup({ endpoints: [endpoint('ep_a')], behaviour: { ep_a: 'hang' } });
    const cancel = new AbortController();
    const pending = router.generate(request(), cloud, cancel.signal);
    setImmediate(() => cancel.abort());
    await expect(pending).rejects.toThrow();
    expect(cloud.calls).toBe(0);
  });

  it('plans on the settings it holds, and plans again when another process changed them', async () => {
    const { router, state, backend, cloud, db, reads } = setup({ endpoints: [endpoint('ep_a'), endpoint('ep_b')] });
    expect((await router.generate(request({ jobId: 'job_1' }), cloud)).route.route).toBe('selfhosted');
    expect((await router.generate(request({ jobId: 'job_2' }), cloud)).route.route).toBe('selfhosted');
    expect(reads.count).toBe(1);
    // Routing turned off elsewhere: the held copy still says on, the claim refuses it as stale.
    db.routing = { ...db.routing, enabled: false };
    await state.bumpSettingsVersion();
    expect(await router.generate(request({ jobId: 'job_3' }), cloud)).toMatchObject({ route: { route: 'cloud', fallbackReason: null } });
    expect(reads.count).toBe(2);
    // And on again, with one endpoint left: the held copy says off, the cloud count refuses it as stale.
    db.routing = { ...db.routing, enabled: true };
    db.endpoints = [endpoint('ep_b')];
    await state.bumpSettingsVersion();
    expect((await router.generate(request({ jobId: 'job_4' }), cloud)).route).toEqual({ route: 'selfhosted', endpointId: 'ep_b', fallbackReason: null });
    expect(reads.count).toBe(3);
    expect(backend.calls).toEqual(['ep_a', 'ep_b', 'ep_b']);
    expect(await state.stats(Date.now())).toMatchObject({ selfhosted: 3, cloud: 1, fallbacks: 0 });
  });
});
