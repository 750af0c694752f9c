import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ProcessRole } from '../../../core/index.js';
import { AppConfig } from '../../../config/index.js';
import { outages } from '../../../platform/health/index.js';
import { ProcessLifecycle } from '../../../platform/lifecycle/index.js';
import { consumesQueues, JobTransport, NO_DEADLINE, QUEUE_ROLE, type DroppedMessage } from '../../../platform/queue/index.js';
import { newClaimId, type ScheduledPost } from '../domain/scheduled-post.js';
import { OAuthStatesRepository } from '../infrastructure/oauth-states.repository.js';
import { PublishQueueScan } from '../infrastructure/publish-queue-scan.js';
import { ScheduledPostsRepository } from '../infrastructure/scheduled-posts.repository.js';
import { PostEvents } from './post-events.js';
import { publishMessageOf, readPublishMessage, type PublishMessage } from './publish-message.js';
import { Publisher } from './publisher.js';

/** The queue of posts to publish (workspace and post id, see publish-message.ts): Bull's `publish` queue with Redis, in-process without. */
export const PUBLISH_QUEUE = Symbol('PublishQueue');
const SWEEP_BATCH = 50;

/**
 * The queue message of one claim: keyed by the post and its claim, so a message a dead worker
 * still holds (Bull keeps it active until its stall check) cannot swallow the claim that replaces it.
 */
const messageKey = (post: ScheduledPost): string => `${post.id}:${post.claimId}`;

/** The claim a message key names (see messageKey). */
const claimOfKey = (key: string, postId: string): string | null => (key.startsWith(`${postId}:`) ? key.slice(postId.length + 1) : null);

/**
 * PostgreSQL decides what is due. In every consuming process, a loop claims due posts
 * (pending → publishing, `FOR UPDATE SKIP LOCKED`, so several dispatchers never take the same
 * post) and queues them, each message naming the post and its workspace. A sweeper takes over posts
 * whose claim outlived the lease: not yet sent → queued again; sent → reconciled (found → published;
 * confirmed absent → queued to be sent once more; cannot tell → checked again later). At a stop it claims
 * no more, lets running attempts finish until the release point, then gives back the claims of
 * those not yet sent (and of messages this process held unstarted); a sent one is left to the sweeper.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Publishing');
  private stopped = false;
  private wake?: () => void;
  private loop?: Promise<void>;
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;
  private closing?: Promise<Record<string, unknown>>;
  /** Attempts running in this process, by post id: what a stop gives back. */
  private readonly running = new Map<string, ScheduledPost>();

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly scan: PublishQueueScan,
    private readonly posts: ScheduledPostsRepository,
    private readonly states: OAuthStatesRepository,
    private readonly publisher: Publisher,
    private readonly events: PostEvents,
    @Inject(PUBLISH_QUEUE) private readonly queue: JobTransport,
    private readonly lifecycle: ProcessLifecycle,
  ) {}

  onApplicationBootstrap(): void {
    if (!consumesQueues(this.role, this.config)) return;
    this.queue.consume((body) => this.run(body));
    this.loop = this.dispatchLoop();
    const every = Math.min(30_000, Math.max(1_000, (this.config.publishing.leaseSeconds * 1000) / 4));
    this.sweeper = setInterval(() => void this.sweep(), every);
    this.lifecycle.onStop((releaseAt) => this.close(releaseAt));
    this.logger.log({ msg: 'publish dispatcher started', role: this.role });
  }

  /** A close no stop began waits for the running attempts, however long. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.close(NO_DEADLINE);
  }

  /** Closes once: the stop's listener and the shutdown hook share it. */
  close(releaseAt: Promise<void>): Promise<Record<string, unknown>> {
    this.closing ??= this.stopPublishing(releaseAt);
    return this.closing;
  }

  private async stopPublishing(releaseAt: Promise<void>): Promise<Record<string, unknown>> {
    this.stopped = true;
    clearInterval(this.sweeper);
    this.wake?.();
    await this.loop;
    const released = releaseAt.then(() => this.releaseRunning()).catch((err: unknown) => {
      this.logger.error({ msg: 'running publish attempts not given back; the sweeper takes them over after the lease', err: String(err) });
      return 0;
    });
    const report = await this.queue.close(released);
    const dropped = await this.releaseDropped(report.dropped);
    if (!consumesQueues(this.role, this.config)) return {};
    return { posts_finished: report.finished, posts_released: (report.abandoned > 0 ? await released : 0) + dropped };
  }

  /**
   * Gives back the claims of the attempts still running: those that have not sent their call go
   * back to pending (their attempt, should it go on, can no longer mark the call: the claim is
   * gone); those that have stay `publishing` for the sweeper to reconcile, never sent again.
   */
  private async releaseRunning(): Promise<number> {
    const posts = [...this.running.values()];
    this.running.clear();
    let released = 0;
    for (const post of posts) {
      if (await this.posts.releaseClaim(this.ds.manager, post.workspaceId, post.id, post.claimId!)) released += 1;
      else this.logger.warn({ msg: 'publish attempt left to the sweeper at stop: its call may have been sent', post_id: post.id });
    }
    return released;
  }

  /** Messages an in-process queue held unstarted are lost with it: their claims go back to pending. */
  private async releaseDropped(dropped: DroppedMessage[]): Promise<number> {
    let released = 0;
    for (const { jobId, key } of dropped) {
      const { workspaceId, postId } = readPublishMessage(jobId);
      const claimId = claimOfKey(key, postId);
      if (workspaceId && claimId && (await this.posts.releaseClaim(this.ds.manager, workspaceId, postId, claimId))) released += 1;
    }
    return released;
  }

  /**
   * Claims and queues one batch of due posts; answers how many. Claims stop while twice a batch
   * waits in the queue: a long backlog stays pending (cancellable, reschedulable) rather than
   * `publishing` behind the workers. A bound, not an exact cap: dispatchers reading the count at
   * the same moment may each claim a batch.
   */
  async dispatchOnce(): Promise<number> {
    const batch = this.config.publishing.dispatchBatch;
    const room = 2 * batch - (await this.scan.queuedCount(this.ds.manager));
    if (room <= 0) return 0;
    const claimed = await this.scan.claimDue(this.ds.manager, newClaimId(), Math.min(batch, room));
    // Events first: a fast consumer's `published` must not overtake this `publishing`.
    await this.events.changed(...claimed);
    for (const post of claimed) await this.enqueue(post);
    return claimed.length;
  }

  /** Queues a claimed post; if the queue refuses (Redis away), the claim goes back rather than waiting out the lease. */
  private async enqueue(post: ScheduledPost): Promise<void> {
    try {
      await this.queue.add(publishMessageOf(post), messageKey(post));
    } catch (err) {
      this.logger.warn({ msg: 'post not queued; claim released', post_id: post.id, err: String(err) });
      await this.posts.releaseClaim(this.ds.manager, post.workspaceId, post.id, post.claimId!);
    }
  }

  /** Runs a queued post. A stale or repeated message finds the post done, or its call already sent, and stops. */
  async run(body: string): Promise<void> {
    const message = readPublishMessage(body);
    const workspaceId = message.workspaceId ?? (await this.workspaceOfLegacyMessage(message));
    if (!workspaceId) return;
    const post = await this.posts.find(this.ds.manager, workspaceId, message.postId);
    if (!post || post.status !== 'publishing' || post.callStartedAt) return;
    this.running.set(post.id, post);
    try {
      await this.publisher.attempt(post);
    } finally {
      if (this.running.get(post.id) === post) this.running.delete(post.id);
    }
  }

  /**
   * A message queued by the release before this one names only the post; Bull may still hold some
   * during a deploy. Its workspace is read from the post once, and the run goes on as for any other.
   * Can go once no such release has messages queued (they live until consumed, minutes at most).
   */
  private async workspaceOfLegacyMessage(message: PublishMessage): Promise<string | null> {
    return this.scan.workspaceOfPost(this.ds.manager, message.postId);
  }

  /** Takes over posts whose claim outlived the lease; forgets OAuth states long expired. One sweep at a time. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    try {
      const abandoned = await this.scan.abandoned(this.ds.manager, this.config.publishing.leaseSeconds, SWEEP_BATCH);
      for (const post of abandoned) await this.takeOver(post);
      await this.states.purgeExpired(this.ds.manager);
      return abandoned.length;
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'publish sweep failed', err: String(err) });
      return 0;
    } finally {
      this.sweeping = false;
    }
  }

  private async takeOver(post: ScheduledPost): Promise<void> {
    const mine = await this.posts.reclaim(this.ds.manager, post.workspaceId, post.id, post.claimId, newClaimId(), this.config.publishing.leaseSeconds);
    if (!mine) return;
    this.logger.warn({ msg: 'abandoned publish taken over', post_id: post.id, call_sent: mine.callStartedAt !== null });
    if (!mine.callStartedAt) return this.enqueue(mine);
    const after = await this.publisher.reconcileAbandoned(mine);
    // The platform confirmed the post does not exist: its call mark is cleared, the claim queued to send it once.
    if (after.status === 'publishing' && !after.callStartedAt && after.claimId === mine.claimId) await this.enqueue(after);
  }

  private async dispatchLoop(): Promise<void> {
    while (!this.stopped) {
      let count = 0;
      try {
        count = await this.dispatchOnce();
      } catch (err) {
        // A database or Redis outage is one warning from the outage log, not one every interval.
        if (!(await outages.covers(err))) this.logger.warn({ msg: 'publish dispatch failed', err: String(err) });
      }
      if (count < this.config.publishing.dispatchBatch) await this.idle(this.config.publishing.dispatchIntervalMs);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
