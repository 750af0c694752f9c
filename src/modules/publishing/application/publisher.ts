import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Metrics } from '../../../platform/metrics/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { MediaUrls, Storage } from '../../../platform/storage/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { ContentFacade } from '../../content/index.js';
import { canPublish } from '../domain/compatibility.js';
import { decideAfterFailure, decideUnreconciled, SHOW_GRACE_MS, type AttemptFailure } from '../domain/publish-outcome.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';
import { ScheduledPostsRepository, type AttemptResult } from '../infrastructure/scheduled-posts.repository.js';
import { PlatformClients } from './platform-clients.js';
import { PostEvents } from './post-events.js';
import { PublishFailure, type PlatformClient, type PublishRequest, type PublishResult } from './ports/platform-client.js';
import { toPublishRequest } from './publish-request.js';
import { TokenKeeper } from './token-keeper.js';

interface Prepared {
  client: PlatformClient;
  request: PublishRequest;
}

type Failure = AttemptFailure & { message: string; handle?: string };

/** Who checks a sent post, and when its call was sent. */
interface Check {
  bySweeper: boolean;
  callStartedAt: Date;
}

const UNCONFIRMED = 'The platform did not confirm the post and cannot be asked whether it was made; it was not sent again.';
const UNREACHABLE = 'The platform did not confirm the post and could not be asked whether it was made for 30 minutes; it was not sent again, to never post twice. Check the account and schedule it again if it is missing.';

/**
 * One publish attempt of a claimed post (status `publishing`, `claim_id` set): prepare, mark the
 * irreversible call as started, send it once, record the outcome. The mark is what makes the
 * call happen at most once: only the attempt that sets it sends, and an attempt found with the
 * mark set but no outcome is reconciled with the platform, never sent again.
 */
@Injectable()
export class Publisher {
  private readonly logger = new Logger('Publishing');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly config: AppConfig,
    private readonly posts: ScheduledPostsRepository,
    private readonly content: ContentFacade,
    private readonly characters: CharactersFacade,
    private readonly keeper: TokenKeeper,
    private readonly clients: PlatformClients,
    private readonly storage: Storage,
    private readonly urls: MediaUrls,
    private readonly events: PostEvents,
    private readonly metrics: Metrics,
    private readonly outbox: Outbox,
  ) {}

  /** Runs the attempt of a claimed post; answers the post as the attempt left it. */
  async attempt(post: ScheduledPost): Promise<ScheduledPost> {
    const claimId = post.claimId!;
    let prepared: Prepared;
    try {
      prepared = await this.prepare(post);
    } catch (err) {
      return this.decide(post, claimId, failureOf(err));
    }
    const since = new Date();
    if (!(await this.posts.markCallStarted(this.ds.manager, post.workspaceId, post.id, claimId))) return this.current(post);
    let result: PublishResult;
    try {
      result = await this.whileHeld(post, claimId, () => this.send(post, prepared));
    } catch (err) {
      // Whatever broke after the mark (even a bug) may have come after the platform made the post.
      const failure = failureOf(err, 'unknown');
      if (failure.point === 'unknown') {
        if (failure.handle) await this.posts.setHandle(this.ds.manager, post.workspaceId, post.id, claimId, failure.handle);
        return this.reconcile(post, claimId, prepared, since, failure.handle ?? null, { bySweeper: false, callStartedAt: since });
      }
      return this.decide(post, claimId, failure);
    }
    // The platform's answer is the truth from here on: recording it never turns into a failure.
    return this.finish(post, claimId, published(result));
  }

  /** Renews the claim's lease while `work` runs, so the sweeper never takes over a live attempt. */
  private async whileHeld<T>(post: ScheduledPost, claimId: string, work: () => Promise<T>): Promise<T> {
    const every = Math.max(1000, (this.config.publishing.leaseSeconds * 1000) / 3);
    const timer = setInterval(() => {
      this.posts.renewClaim(this.ds.manager, post.workspaceId, post.id, claimId).catch((err: unknown) => this.logger.warn({ msg: 'claim not renewed', post_id: post.id, err: String(err) }));
    }, every);
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * A sent post nobody is working on (its worker died, or an earlier check left it for later): the
   * sweeper's case. Asks the platform whether the post exists and records what it says; a post the
   * platform confirms it does not have comes back `publishing` with no call mark, for the caller to
   * queue (it is sent once more). A post that cannot be prepared for the question (its connection
   * cannot be read now) is checked again later, like a platform that cannot tell.
   */
  async reconcileAbandoned(post: ScheduledPost): Promise<ScheduledPost> {
    const claimId = post.claimId!;
    const callStartedAt = post.callStartedAt ?? post.claimedAt ?? new Date();
    let prepared: Prepared;
    try {
      prepared = await this.prepare(post);
    } catch (err) {
      this.logger.warn({ msg: 'abandoned post cannot be reconciled now', post_id: post.id, err: String(err) });
      if (!mayPass(err)) return this.finish(post, claimId, { status: 'failed', error: { code: 'unconfirmed', message: UNCONFIRMED } });
      return this.unreconciled(post, claimId, 'unknown', { bySweeper: true, callStartedAt });
    }
    return this.reconcile(post, claimId, prepared, callStartedAt, post.remoteHandle, { bySweeper: true, callStartedAt });
  }

  private async prepare(post: ScheduledPost): Promise<Prepared> {
    const item = await this.content.get(post.workspaceId, post.contentId);
    if (item.status !== 'approved' && item.status !== 'published') {
      throw new PublishFailure('content_rejected', `The content is ${item.status}, no longer approved; it was not posted.`);
    }
    if (!canPublish(post.platformKey, item.contentType)) {
      throw new PublishFailure('content_rejected', `${post.platform} cannot publish ${item.contentType} content.`);
    }
    const connection = await this.keeper.usable(post.workspaceId, post.platformKey);
    return { client: this.clients.get(post.platformKey), request: toPublishRequest(post, item, connection, this.storage, this.urls) };
  }

  /** Sends the post; a token the platform refuses is renewed once and the post sent again (nothing was made). */
  private async send(post: ScheduledPost, { client, request }: Prepared): Promise<PublishResult> {
    try {
      return await client.publish(request);
    } catch (err) {
      if (!(err instanceof PublishFailure) || err.code !== 'token_expired' || err.point !== 'before') throw err;
      const renewed = await this.keeper.usable(post.workspaceId, post.platformKey, request.accessToken);
      return client.publish({ ...request, accessToken: renewed.accessToken });
    }
  }

  /**
   * Asks the platform whether the post was made (contract §8). Found → published. Not shown, or
   * the platform cannot be read this time → `decideUnreconciled`: checked again later with
   * back-off, sent once more by the sweeper when the platform confirms it does not exist, given up
   * as `unconfirmed` only when the platform can never tell or still cannot after the window.
   */
  private async reconcile(post: ScheduledPost, claimId: string, { client, request }: Prepared, since: Date, handle: string | null, check: Check): Promise<ScheduledPost> {
    if (!client.reconcile) return this.finish(post, claimId, { status: 'failed', error: { code: 'unconfirmed', message: UNCONFIRMED } });
    let found: PublishResult | null;
    try {
      const knownRemoteIds = await this.posts.remoteIdsSince(this.ds.manager, post.workspaceId, post.platformKey, new Date(since.getTime() - 3600_000));
      found = await client.reconcile({ ...request, since, knownRemoteIds, handle });
    } catch (err) {
      this.logger.warn({ msg: 'reconciliation failed', post_id: post.id, err: String(err) });
      if (err instanceof PublishFailure && err.code === 'unconfirmed') return this.finish(post, claimId, { status: 'failed', error: { code: 'unconfirmed', message: UNCONFIRMED } });
      return this.unreconciled(post, claimId, 'unknown', check);
    }
    this.logger.log({ msg: 'post reconciled', post_id: post.id, platform: post.platformKey, found: found !== null, by_sweeper: check.bySweeper });
    if (found) return this.finish(post, claimId, published(found));
    return this.unreconciled(post, claimId, 'absent', check);
  }

  /** Carries out `decideUnreconciled` for a sent post the platform does not show, or cannot tell about now. */
  private async unreconciled(post: ScheduledPost, claimId: string, shown: 'absent' | 'unknown', check: Check): Promise<ScheduledPost> {
    const { timeoutMs, leaseSeconds } = this.config.publishing;
    const decision = decideUnreconciled({ shown, bySweeper: check.bySweeper, callAgeMs: Date.now() - check.callStartedAt.getTime(), callBudgetMs: timeoutMs, leaseMs: leaseSeconds * 1000 });
    if (decision.action === 'give_up') {
      return this.finish(post, claimId, { status: 'failed', error: { code: 'unconfirmed', message: UNREACHABLE } });
    }
    if (decision.action === 'resend') {
      const again = await this.posts.resend(this.ds.manager, post.workspaceId, post.id, claimId, Math.ceil((timeoutMs + SHOW_GRACE_MS) / 1000));
      if (again) {
        this.logger.warn({ msg: 'platform shows no post for the sent call: sent once more', post_id: post.id, platform: post.platformKey });
        return again;
      }
      // The database's clock says the call is younger than that: ask again a little later.
      return this.checkAgainLater(post, claimId, leaseSeconds * 1000);
    }
    return this.checkAgainLater(post, claimId, decision.inMs);
  }

  /** Leaves the post `publishing` for nobody: the sweeper reconciles it again in `inMs`. */
  private async checkAgainLater(post: ScheduledPost, claimId: string, inMs: number): Promise<ScheduledPost> {
    await this.posts.deferCheck(this.ds.manager, post.workspaceId, post.id, claimId, inMs, this.config.publishing.leaseSeconds);
    return this.current(post);
  }

  /** A failure with nothing made public: retry later when it may pass, else fail (contract §8). */
  private decide(post: ScheduledPost, claimId: string, failure: Failure): Promise<ScheduledPost> {
    const decision = decideAfterFailure(failure, post.attempts, new Date());
    const error = { code: failure.code, message: failure.message };
    this.logger.warn({ msg: 'publish attempt failed', post_id: post.id, platform: post.platformKey, code: failure.code, attempt: post.attempts, decision: decision.action });
    if (decision.action === 'retry') return this.finish(post, claimId, { status: 'pending', nextAttemptAt: decision.at, error });
    if (decision.action === 'fail') return this.finish(post, claimId, { status: 'failed', error: { code: decision.code, message: failure.message } });
    return this.finish(post, claimId, { status: 'failed', error: { code: 'unconfirmed', message: UNCONFIRMED } });
  }

  /**
   * Records the outcome with the content's publication and its customer event (`post.published`,
   * or `post.failed` for a failure for good) in one transaction, then tells the sockets. Every
   * path that ends a post (the attempt, a reconciliation, the sweeper's) ends it here.
   */
  private async finish(post: ScheduledPost, claimId: string, result: AttemptResult): Promise<ScheduledPost> {
    const updated = await inTransaction(this.ds, async (tx) => {
      let row = await this.posts.finishAttempt(tx, post.workspaceId, post.id, claimId, result);
      // A success that arrives after a takeover gave up on it still wins over `unconfirmed`.
      if (!row && result.status === 'published') row = await this.posts.publishedAfterAll(tx, post.workspaceId, post.id, result);
      if (row && result.status === 'published') {
        await this.markContentPublished(tx, post, result.publishedAt);
        await this.characters.recordPost(tx, post.workspaceId, post.characterId, result.publishedAt);
      }
      if (row && (result.status === 'published' || result.status === 'failed')) {
        await this.outbox.record(tx, {
          type: result.status === 'published' ? 'post.published' : 'post.failed',
          workspaceId: row.workspaceId,
          payload: { postId: row.id, platform: row.platform },
        });
      }
      return row;
    });
    if (!updated) {
      this.logger.warn({ msg: 'publish outcome not recorded: the claim was taken over', post_id: post.id, outcome: result.status });
      return this.current(post);
    }
    this.metrics.publishOutcome(post.platformKey, result.status === 'pending' ? 'retry' : result.status);
    if (result.status === 'published') this.logger.log({ msg: 'post published', post_id: post.id, platform: post.platformKey, remote_post_id: result.remotePostId });
    await this.events.changed(updated);
    if (result.status === 'published') await this.content.announce(post.workspaceId, post.contentId);
    return updated;
  }

  /**
   * The item becomes published with its first post. An item moved on meanwhile (regenerated,
   * rejected) keeps its status: the post is live all the same and is recorded as such.
   */
  private async markContentPublished(tx: Tx, post: ScheduledPost, at: Date): Promise<void> {
    try {
      await this.content.markPublished(tx, post.workspaceId, post.contentId, at);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid_state_transition') throw err;
      this.logger.warn({ msg: 'post published but its content had moved on; content status kept', post_id: post.id, content_id: post.contentId });
    }
  }

  private async current(post: ScheduledPost): Promise<ScheduledPost> {
    return (await this.posts.find(this.ds.manager, post.workspaceId, post.id)) ?? post;
  }
}

function published(result: PublishResult): AttemptResult {
  return { status: 'published', publishedAt: new Date(), remotePostId: result.remotePostId, remoteUrl: result.remoteUrl, mediaUrls: result.mediaUrls };
}

/** Anything thrown while preparing or sending, as a publish failure; `point` for errors that are not. */
function failureOf(err: unknown, point: AttemptFailure['point'] = 'before'): Failure {
  if (err instanceof PublishFailure) return { code: err.code, point: err.point, retryAfterMs: err.retryAfterMs, message: err.message, handle: err.handle };
  if (err instanceof AppError && err.code === 'not_found') return { code: 'content_rejected', point: 'before', message: 'The content no longer exists.' };
  return { code: 'unknown_error', point, message: 'The post could not be sent: an unexpected error occurred.' };
}

/** A failure preparing a reconciliation that may pass (the platform or its token unreachable now), not one that never will. */
function mayPass(err: unknown): boolean {
  if (err instanceof PublishFailure) return err.code === 'network_error' || err.code === 'rate_limited' || err.code === 'unknown_error';
  return !(err instanceof AppError);
}
