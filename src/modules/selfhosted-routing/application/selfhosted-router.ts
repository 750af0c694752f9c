import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, type SelfHostedSettings } from '../../../config/index.js';
import {
  CLOUD_ROUTE, ImageRouter, fitImage, promptWithLook, type GeneratedMedia, type ImageGenerator, type ImageRequest, type RoutedImages,
} from '../../generation/index.js';
import { Metrics } from '../../../platform/metrics/index.js';
import type { CircuitState } from '../domain/circuit.js';
import { currentHealth, rankEndpoints, takesSelfHosted, type Capability, type CloudReason, type EndpointState, type FallbackReason } from '../domain/routing-rules.js';
import { countsAgainstEndpoint, describeFailure } from './failure-kinds.js';
import { GpuBackends } from './gpu-backends.js';
import type { GpuImageRequest, GpuTarget } from './ports/gpu-backend.js';
import { RouterState, type Lease, type RoutedOutcome } from './router-state.js';
import { RoutingDirectory, type DirectoryEntry } from './routing-directory.js';

type Plan = { cloud: CloudReason } | { capability: Capability; entries: DirectoryEntry[] };
type Attempt = { media: GeneratedMedia[]; endpointId: string } | { fallback: FallbackReason };

/**
 * Self-hosted GPU routing (contract §13), installed at the image seam: every image job passes here.
 * A job whose bucket falls under the routing percentage tries the eligible endpoints, up to
 * 1 + retries attempts within one budget; whatever goes wrong, the same job is drawn on the cloud
 * path at once. The charge was taken when the job was ordered, so the user pays once either way.
 */
@Injectable()
export class SelfHostedRouter extends ImageRouter {
  private readonly logger = new Logger('SelfHostedRouting');
  private readonly settings: SelfHostedSettings;

  constructor(
    config: AppConfig,
    private readonly directory: RoutingDirectory,
    private readonly state: RouterState,
    private readonly backends: GpuBackends,
    private readonly metrics: Metrics,
  ) {
    super();
    this.settings = config.selfHosted;
  }

  async generate(req: ImageRequest, fallback: ImageGenerator, signal?: AbortSignal): Promise<RoutedImages> {
    const plan = await this.plan(req);
    if ('cloud' in plan) {
      await this.record({ route: 'cloud', fallback: null }, plan.cloud);
      return { media: await fallback.generate(req, signal), route: CLOUD_ROUTE };
    }
    const attempt = await this.attempt(req, plan.capability, plan.entries, signal);
    if ('media' in attempt) {
      await this.record({ route: 'selfhosted' }, null);
      return { media: attempt.media, route: { route: 'selfhosted', endpointId: attempt.endpointId, fallbackReason: null } };
    }
    signal?.throwIfAborted();
    await this.record({ route: 'cloud', fallback: attempt.fallback }, attempt.fallback);
    this.logger.log({ msg: 'image job falls back to the cloud path', job_id: req.jobId, reason: attempt.fallback });
    return { media: await fallback.generate(req, signal), route: { ...CLOUD_ROUTE, fallbackReason: attempt.fallback } };
  }

  /** The shared stats (the admin's GET) and this process's Prometheus counters. */
  private async record(outcome: RoutedOutcome, reason: CloudReason | FallbackReason | null): Promise<void> {
    this.metrics.routingDecision(outcome.route, reason);
    if (outcome.route === 'cloud' && outcome.fallback) this.metrics.routingFallback(outcome.fallback);
    await this.state.count(outcome, Date.now());
  }

  private async plan(req: ImageRequest): Promise<Plan> {
    const { settings, entries } = await this.directory.current();
    if (!settings.enabled) return { cloud: 'routing_disabled' };
    if (!takesSelfHosted(req.jobId, settings.percentage)) return { cloud: 'percentage' };
    // A trained LoRA lives with the cloud model it was trained for; a self-hosted server has no copy.
    if (req.lora) return { cloud: 'lora' };
    return { capability: req.initImage ? 'image_to_image' : 'text_to_image', entries };
  }

  /** Up to 1 + retries attempts, preferring an endpoint not yet tried, all inside one budget. */
  private async attempt(req: ImageRequest, capability: Capability, entries: DirectoryEntry[], signal?: AbortSignal): Promise<Attempt> {
    const budget = AbortSignal.timeout(this.settings.budgetMs);
    const bounded = signal ? AbortSignal.any([signal, budget]) : budget;
    const tried = new Set<string>();
    let reason: FallbackReason = 'no_eligible_endpoint';
    let gpuReq: GpuImageRequest | null = null;
    for (let i = 0; i <= this.settings.retries && !bounded.aborted; i++) {
      const claimed = await this.claimBest(capability, entries, tried);
      if (!claimed) break;
      tried.add(claimed.entry.endpoint.id);
      gpuReq ??= await toGpuRequest(req);
      const media = await this.run(claimed.lease, claimed.target, gpuReq, bounded, budget, req.jobId);
      if (media) return { media, endpointId: claimed.entry.endpoint.id };
      reason = budget.aborted ? 'timeout' : 'endpoint_failed';
    }
    return { fallback: reason };
  }

  /** The best eligible endpoint whose slot (or half-open trial) this process wins. */
  private async claimBest(capability: Capability, entries: DirectoryEntry[], tried: ReadonlySet<string>): Promise<{ entry: DirectoryEntry; target: GpuTarget; lease: Lease } | null> {
    const usable = entries.filter((e) => e.target !== null);
    if (usable.length === 0) return null;
    const now = Date.now();
    const runtime = await this.state.runtime(usable.map((e) => e.endpoint.id), now);
    const states: EndpointState[] = usable.map(({ endpoint: e }) => {
      const rt = runtime.get(e.id)!;
      const health = currentHealth(rt.health, rt.healthCheckedAt, now, this.settings.healthTtlMs);
      return { id: e.id, status: e.status, capabilities: e.capabilities, maxConcurrency: e.maxConcurrency, health, load: rt.load, avgLatencyMs: rt.avgLatencyMs, circuit: rt.circuit };
    });
    for (const candidate of rankEndpoints(states, capability, now, tried)) {
      const claim = await this.state.claim(candidate.id, candidate.maxConcurrency, Date.now(), this.settings.leaseMs);
      if (!('lease' in claim)) continue;
      const entry = usable.find((e) => e.endpoint.id === candidate.id)!;
      return { entry, target: entry.target!, lease: claim.lease };
    }
    return null;
  }

  /** One request on a held slot: renewed while it runs; settling its outcome (which feeds the circuit) frees it. */
  private async run(lease: Lease, target: GpuTarget, req: GpuImageRequest, bounded: AbortSignal, budget: AbortSignal, jobId: string): Promise<GeneratedMedia[] | null> {
    const renewal = setInterval(() => void this.state.renew(lease, Date.now(), this.settings.leaseMs).catch(() => undefined), Math.floor(this.settings.leaseMs / 3));
    const started = Date.now();
    let settled = false;
    try {
      const media = await this.backends.for(target.kind).generate(target, req, bounded);
      if (media.length < req.count) throw new Error(`made ${media.length} of ${req.count} images`);
      clearInterval(renewal);
      const circuit = await this.state.succeeded(lease, Date.now() - started, Date.now());
      settled = true;
      this.metrics.circuitState(target.id, circuit);
      return media;
    } catch (err) {
      clearInterval(renewal);
      if (settled) throw err;
      const timedOut = budget.aborted;
      const counted = countsAgainstEndpoint(err, timedOut);
      const error = describeFailure(err, timedOut);
      const circuit: CircuitState = await this.state.failed(lease, error, counted, Date.now(), { threshold: this.settings.circuitThreshold, resetMs: this.settings.circuitResetMs });
      settled = true;
      this.metrics.circuitState(target.id, circuit);
      this.logger.warn({ msg: 'self-hosted attempt failed', job_id: jobId, endpoint_id: target.id, error, counted, circuit });
      return null;
    } finally {
      clearInterval(renewal);
      // Only when settling itself failed (Redis gone): the lease would lapse anyway, this frees it sooner.
      if (!settled) await this.state.release(lease).catch(() => undefined);
    }
  }
}

/** The request a GPU server understands: the prompt in the character's look, the init image fitted to the size. */
async function toGpuRequest(req: ImageRequest): Promise<GpuImageRequest> {
  return {
    prompt: promptWithLook(req),
    ...(req.negativePrompt ? { negativePrompt: req.negativePrompt } : {}),
    width: req.width,
    height: req.height,
    count: req.count,
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
    ...(req.initImage ? { initImage: await fitImage(req.initImage, req.width, req.height), strength: req.strength ?? 0.8 } : {}),
  };
}
