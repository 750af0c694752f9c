import type { PersonaClient } from './client.js';
import { PersonaApiError, unwrap } from './errors.js';
import type { components } from './generated/schema.js';
import { parseMessage, socketUrlOf, webSocketClass, type WebSocketConstructor, type WebSocketLike } from './socket.js';

/** A job as `GET /jobs/{id}` (and `GET /public/jobs/{id}`, and the socket's `job.*` events) show it. */
export type Job = components['schemas']['JobDoc'];

/** The job ended `failed` (its `error` says why; its credits were refunded) or `cancelled`. */
export class JobFailedError extends Error {
  override name = 'JobFailedError';
  constructor(readonly job: Job) {
    super(job.status === 'cancelled' ? `Job ${job.id} was cancelled.` : `Job ${job.id} failed: ${job.error?.message ?? 'no reason given'}`);
  }
}

/** The job did not end within `timeoutMs`; `lastSeen` is how it last read. */
export class JobTimeoutError extends Error {
  override name = 'JobTimeoutError';
  constructor(
    readonly jobId: string,
    readonly lastSeen: Job | undefined,
  ) {
    super(`Job ${jobId} did not end in time (last seen ${lastSeen?.status ?? 'never'}).`);
  }
}

export interface WaitForJobOptions {
  /** Give up after this long (default 10 minutes). */
  timeoutMs?: number;
  /** Between two reads when polling (default 1 s). */
  pollMs?: number;
  /** While the socket is open, the job is still read this often, for what the socket does not tell: a cancellation, a lost event (default 30 s). */
  socketPollMs?: number;
  signal?: AbortSignal;
  /**
   * The socket to follow the job on. Defaults: the client's API URL + `/ws`, the client's credential,
   * the global `WebSocket` (pass `ws`'s class on Node 20). `false`: poll only.
   */
  socket?: false | { url?: string; token?: string; WebSocket?: WebSocketConstructor };
  /** Each reading of the job that is not the end (socket `job.progress` events and polls). */
  onProgress?: (job: Job) => void;
}

const DEFAULTS = { timeoutMs: 10 * 60_000, pollMs: 1000, socketPollMs: 30_000 };
/** The server closes a socket that has not authenticated within 10 s; one not subscribed by then is given up. */
const SUBSCRIBE_WITHIN_MS = 10_000;

/**
 * Waits until job `id` ends: resolves with it `completed`, throws JobFailedError when it ends
 * `failed` or `cancelled`. Follows the socket's `job.*` events when a WebSocket class is at hand
 * and the socket accepts the credential, and polls the job over HTTP (`GET /public/jobs/{id}` with
 * an API key, `GET /jobs/{id}` with a session) when there is none, it refuses or it closes. The job
 * is read once over HTTP as soon as the socket is subscribed, so a job that ended before is not missed.
 */
export function waitForJob(client: PersonaClient, id: string, options: WaitForJobOptions = {}): Promise<Job> {
  return new Promise<Job>((resolve, reject) => new JobWait(client, id, options, resolve, reject).start());
}

/** A PersonaApiError that asking again will not change (a 404, a missing scope); others are retried. */
function isFinal(err: unknown): boolean {
  return err instanceof PersonaApiError && err.status >= 400 && err.status < 500 && err.status !== 429 && err.status !== 408;
}

class JobWait {
  private settled = false;
  private polling = false;
  private subscribed = false;
  private socket?: WebSocketLike;
  private lastSeen?: Job;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly onAbort = () => this.fail(this.options.signal?.reason ?? new Error('aborted'));
  private readonly pollMs: number;

  constructor(
    private readonly client: PersonaClient,
    private readonly id: string,
    private readonly options: WaitForJobOptions,
    private readonly resolve: (job: Job) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.pollMs = options.pollMs ?? DEFAULTS.pollMs;
  }

  start(): void {
    if (this.options.signal?.aborted) return this.onAbort();
    this.options.signal?.addEventListener('abort', this.onAbort);
    this.later(() => this.fail(new JobTimeoutError(this.id, this.lastSeen)), this.options.timeoutMs ?? DEFAULTS.timeoutMs);
    const socket = this.options.socket;
    const WebSocket = socket === false ? undefined : webSocketClass(socket?.WebSocket);
    if (WebSocket) this.subscribe(WebSocket);
    else this.poll();
  }

  private subscribe(WebSocket: WebSocketConstructor): void {
    const given = this.options.socket || {};
    let socket: WebSocketLike;
    try {
      socket = new WebSocket(given.url ?? socketUrlOf(this.client.auth.apiUrl));
    } catch {
      return this.poll();
    }
    this.socket = socket;
    const token = given.token ?? this.client.auth.credential() ?? '';
    socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'auth', token })));
    socket.addEventListener('message', (event) => this.onMessage(parseMessage(event.data)));
    // A refusal (auth.error, then 4401/4403), a server going away (1001) or a network error: poll instead.
    socket.addEventListener('close', () => this.poll());
    socket.addEventListener('error', () => this.poll());
    this.later(() => this.subscribed || this.poll(), SUBSCRIBE_WITHIN_MS);
  }

  private onMessage(message: Record<string, unknown> | null): void {
    if (this.settled || !message || this.polling) return;
    if (message.type === 'auth.ok') {
      this.subscribed = true;
      // Subscribed: whatever happens from now on arrives as an event; what happened before, this read tells.
      const safety = async () => {
        await this.check();
        if (!this.polling) this.later(safety, this.options.socketPollMs ?? DEFAULTS.socketPollMs);
      };
      void safety();
    } else if (message.type === 'auth.error') {
      this.poll();
    } else if (typeof message.type === 'string' && message.type.startsWith('job.')) {
      const job = message.job as Job | undefined;
      if (job?.id === this.id) this.see(job);
    }
  }

  /** Reads the job over HTTP every `pollMs` until it ends; started once, it closes the socket. */
  private poll(): void {
    if (this.polling || this.settled) return;
    this.polling = true;
    this.socket?.close();
    const tick = async () => {
      await this.check();
      this.later(tick, this.pollMs);
    };
    void tick();
  }

  private async check(): Promise<void> {
    try {
      this.see(await this.read());
    } catch (err) {
      if (isFinal(err)) this.fail(err);
    }
  }

  private async read(): Promise<Job> {
    const params = { params: { path: { id: this.id } } };
    const answer = this.client.auth.mode === 'apiKey' ? await this.client.GET('/public/jobs/{id}', params) : await this.client.GET('/jobs/{id}', params);
    return unwrap(answer).job;
  }

  private see(job: Job): void {
    if (this.settled) return;
    this.lastSeen = job;
    if (job.status === 'completed') return this.finish(() => this.resolve(job));
    if (job.status === 'failed' || job.status === 'cancelled') return this.finish(() => this.reject(new JobFailedError(job)));
    this.options.onProgress?.(job);
  }

  private fail(err: unknown): void {
    if (!this.settled) this.finish(() => this.reject(err));
  }

  private finish(settle: () => void): void {
    this.settled = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.socket?.close();
    settle();
  }

  /** Runs `fn` after `ms` unless the wait has ended by then. */
  private later(fn: () => unknown, ms: number): void {
    if (this.settled) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.settled) void fn();
    }, ms);
    this.timers.add(timer);
  }
}
