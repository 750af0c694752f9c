import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, type SelfHostedSettings } from '../../../config/index.js';
import {
  CLOUD_ROUTE, ImageRouter, fitImage, promptWithLook, type GeneratedMedia, type ImageGenerator, type ImageRequest, type RoutedImages,
} from '../../generation/index.js';
import { Metrics } from '../../../platform/metrics/index.js';
import type { CircuitState } from '../domain/circuit.js';
import type { RoutingSettings } from '../domain/endpoint.js';
import { serves, takesSelfHosted, type Capability, type CloudReason, type FallbackReason } from '../domain/routing-rules.js';
import { countsAgainstEndpoint, describeFailure } from './failure-kinds.js';
import { GpuBackends } from './gpu-backends.js';
import type { GpuImageRequest, GpuTarget } from './ports/gpu-backend.js';
import { RouterState, type Lease } from './router-state.js';
import { RoutingDirectory, type DirectoryEntry } from './routing-directory.js';

type Plan = { cloud: CloudReason } | { capability: Capability };
type Attempt = { media: GeneratedMedia[]; endpointId: string } | { fallback: FallbackReason } | { stale: true };
type Claimed = { lease: Lease; target: GpuTarget } | { refused: 'none' | 'stale' };

/** After this many plans refused as stale in a row (settings changing under one job), a job acts on the copy it has. */
const MAX_REPLANS = 3;

/**
 * Self-hosted GPU routing (contract §13), installed at the image seam: every image job passes here.
 * A job whose bucket falls under the routing percentage tries the eligible endpoints, up to
 * 1 + retries attempts within one budget; whatever goes wrong, the same job is drawn on the cloud
 * path at once. The charge was taken when the job was ordered, so the user pays once either way.
 *
 * A job is planned on the directory this process holds; the shared step that acts on the plan
 * (the claim of a slot, or the count of a cloud job) checks that copy's version, and a stale plan
 * is made again on fresh settings. A self-hosted job waits for one round trip to the shared state
 * (the claim) and writes its success behind it; a cloud job makes one.
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
    let directory = await this.directory.held();
    for (let plans = 1; ; plans++) {
      const checked = plans <= MAX_REPLANS ? directory.version : undefined;
      const plan = planOf(req, directory.settings);
      if ('cloud' in plan) {
        if ((await this.state.countCloud({ fallback: null }, Date.now(), checked)) === 'stale') {
          directory = await this.directory.current();
          continue;
        }
        this.metrics.routingDecision('cloud', plan.cloud);
        return { media: await fallback.generate(req, signal), route: CLOUD_ROUTE };
      }
      const attempt = await this.attempt(req, plan.capability, directory.entries, checked, signal);
      if ('stale' in attempt) {
        directory = await this.directory.current();
        continue;
      }
      if ('media' in attempt) {
        this.metrics.routingDecision('selfhosted', null);
        return { media: attempt.media, route: { route: 'selfhosted', endpointId: attempt.endpointId, fallbackReason: null } };
      }
      signal?.throwIfAborted();
      await this.state.countCloud({ fallback: attempt.fallback }, Date.now());
      this.metrics.routingDecision('cloud', attempt.fallback);
      this.metrics.routingFallback(attempt.fallback);
      this.logger.log({ msg: 'image job falls back to the cloud path', job_id: req.jobId, reason: attempt.fallback });
      return { media: await fallback.generate(req, signal), route: { ...CLOUD_ROUTE, fallbackReason: attempt.fallback } };
    }
  }

  /**
   * Up to 1 + retries attempts, preferring an endpoint not yet tried, all inside one budget. The
   * first claim checks the plan's settings version (`checked`); retries go on with the endpoints
   * the job was planned with.
   */
  private async attempt(req: ImageRequest, capability: Capability, entries: DirectoryEntry[], checked: string | undefined, signal?: AbortSignal): Promise<Attempt> {
    const serving = entries.filter((e) => e.target !== null && serves(e.endpoint, capability));
    // Made before any slot is held: a request that cannot be made must not sit on one.
    const gpuReq = serving.length > 0 ? await toGpuRequest(req) : null;
    const budget = new AttemptBudget(this.settings.budgetMs, signal);
    try {
      const tried = new Set<string>();
      let reason: FallbackReason = 'no_eligible_endpoint';
      for (let i = 0; i <= this.settings.retries && !budget.signal.aborted; i++) {
        const claimed = await this.claimBest(serving, tried, i === 0 ? checked : undefined);
        if ('refused' in claimed) {
          if (claimed.refused === 'stale') return { stale: true };
          break;
        }
        tried.add(claimed.target.id);
        // A slot is only ever won on a serving endpoint, so the request was made.
        const media = await this.run(claimed.lease, claimed.target, gpuReq!, budget, req.jobId);
        if (media) return { media, endpointId: claimed.target.id };
        reason = budget.expired ? 'timeout' : 'endpoint_failed';
      }
      return { fallback: reason };
    } finally {
      budget.end();
    }
  }

  /** A slot (or the half-open trial) on the best available endpoint, chosen and taken in one step of the shared state. */
  private async claimBest(serving: DirectoryEntry[], tried: ReadonlySet<string>, version: string | undefined): Promise<Claimed> {
    // Nothing to claim and nothing to check.
    if (serving.length === 0 && version === undefined) return { refused: 'none' };
    const candidates = serving.map(({ endpoint: e }) => ({ id: e.id, maxConcurrency: e.maxConcurrency, tried: tried.has(e.id) }));
    const claim = await this.state.claimBest({ candidates, version, now: Date.now(), leaseMs: this.settings.leaseMs, healthTtlMs: this.settings.healthTtlMs });
    if ('refused' in claim) return claim;
    return { lease: claim.lease, target: serving.find((e) => e.endpoint.id === claim.lease.endpointId)!.target! };
  }

  /** One request on a held slot; settling its outcome (which feeds the circuit) frees the slot. */
  private async run(lease: Lease, target: GpuTarget, req: GpuImageRequest, budget: AttemptBudget, jobId: string): Promise<GeneratedMedia[] | null> {
    const started = Date.now();
    const outcome = await this.request(lease, target, req, budget.signal);
    if ('media' in outcome) {
      this.settleSuccess(lease, target.id, started);
      return outcome.media;
    }
    await this.settleFailure(lease, target.id, outcome.error, budget.expired, jobId);
    return null;
  }

  /** The backend's call, with the slot's lease renewed while it runs. */
  private async request(lease: Lease, target: GpuTarget, req: GpuImageRequest, signal: AbortSignal): Promise<{ media: GeneratedMedia[] } | { error: unknown }> {
    const renewal = setInterval(() => void this.state.renew(lease, Date.now(), this.settings.leaseMs).catch(() => undefined), Math.floor(this.settings.leaseMs / 3));
    try {
      const media = await this.backends.for(target.kind).generate(target, req, signal);
      if (media.length < req.count) throw new Error(`made ${media.length} of ${req.count} images`);
      return { media };
    } catch (error) {
      return { error };
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * A success is written behind the job, which has its images: the job does not wait for the
   * answer. This process's next claim goes out on the same connection after it, so it sees the
   * slot freed; if the write is lost (Redis gone), the lease lapses and one job goes uncounted.
   * (The circuit gauges are read from the shared state at each scrape: see RoutingGauges.)
   */
  private settleSuccess(lease: Lease, endpointId: string, started: number): void {
    const now = Date.now();
    this.state.succeeded(lease, now - started, now).catch((err: unknown) =>
      this.logger.warn({ msg: 'self-hosted success not recorded; its slot lapses with its lease', endpoint_id: endpointId, error: String(err) }),
    );
  }

  /** A failure is settled before the job goes on: a retry's claim, and the circuit, must see it. */
  private async settleFailure(lease: Lease, endpointId: string, cause: unknown, timedOut: boolean, jobId: string): Promise<void> {
    const counted = countsAgainstEndpoint(cause, timedOut);
    const error = describeFailure(cause, timedOut);
    let circuit: CircuitState;
    try {
      circuit = await this.state.failed(lease, error, counted, Date.now(), { threshold: this.settings.circuitThreshold, resetMs: this.settings.circuitResetMs });
    } catch (err) {
      // The shared state is unreachable: the lease would lapse anyway; this frees it sooner.
      await this.state.release(lease).catch(() => undefined);
      throw err;
    }
    this.logger.warn({ msg: 'self-hosted attempt failed', job_id: jobId, endpoint_id: endpointId, error, counted, circuit });
  }
}

/**
 * The self-hosted attempt's time budget joined with the job's own cancellation, in one signal.
 * A controller and a timer rather than `AbortSignal.timeout` and `AbortSignal.any`: those cost
 * about 12 µs a job here, and their timer outlives the attempt.
 */
class AttemptBudget {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private ranOut = false;
  private readonly onJobAbort = (): void => this.controller.abort(this.job?.reason);

  constructor(ms: number, private readonly job?: AbortSignal) {
    this.timer = setTimeout(() => {
      this.ranOut = true;
      this.controller.abort(new DOMException('the self-hosted budget ran out', 'TimeoutError'));
    }, ms);
    if (job?.aborted) this.onJobAbort();
    else job?.addEventListener('abort', this.onJobAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The budget ran out (rather than the job being cancelled). */
  get expired(): boolean {
    return this.ranOut;
  }

  end(): void {
    clearTimeout(this.timer);
    this.job?.removeEventListener('abort', this.onJobAbort);
  }
}

/** Whether a job goes self-hosted at all (contract §13), and with which capability. */
function planOf(req: ImageRequest, settings: RoutingSettings): Plan {
  if (!settings.enabled) return { cloud: 'routing_disabled' };
  if (!takesSelfHosted(req.jobId, settings.percentage)) return { cloud: 'percentage' };
  // A trained LoRA lives with the cloud model it was trained for; a self-hosted server has no copy.
  if (req.lora) return { cloud: 'lora' };
  return { capability: req.initImage ? 'image_to_image' : 'text_to_image' };
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
