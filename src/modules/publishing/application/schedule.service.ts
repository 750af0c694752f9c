import { Injectable } from '@nestjs/common';
import { PUBLISH_PLATFORMS } from '../../../config/index.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, canonicalPlatform, isPlatformName, localParts, newId, zonedInstant, type LocalDate, type Page, type PageRequest, type Platform } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { ContentFacade, type ContentItem } from '../../content/index.js';
import { canPublish, refusalOf } from '../domain/compatibility.js';
import { postTimeFor } from '../domain/post-time.js';
import { FINISHED_STATUSES, type PostStatus, type ScheduledPost } from '../domain/scheduled-post.js';
import { allocateSlots, hoursFromHistory, MIN_GAP_MS, type SlotHours, type SlotSource, type SlotTarget } from '../domain/slots.js';
import { ScheduledPostsRepository, type NewPost } from '../infrastructure/scheduled-posts.repository.js';
import { ConnectionsService } from './connections.service.js';
import { PostEvents } from './post-events.js';
import { PostingHistories } from './posting-history.js';

const DAY_MS = 24 * 3600_000;
/** How many approved items one generate call plans at most. */
const PLAN_LIMIT = 200;

export interface GenerateInput {
  characterId: string;
  /** An instant, or a local day that starts at midnight in the character's zone. */
  startDate: Date | LocalDate;
  platforms?: string[];
  days: number;
}

export interface PostQuery {
  characterId?: string;
  platform?: string;
  statuses?: PostStatus[];
  from?: Date;
  to?: Date;
}

/** Planning posts: slots for approved items, explicit schedules, listing, rescheduling, cancelling. */
@Injectable()
export class ScheduleService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly posts: ScheduledPostsRepository,
    private readonly characters: CharactersFacade,
    private readonly content: ContentFacade,
    private readonly connections: ConnectionsService,
    private readonly events: PostEvents,
    private readonly histories: PostingHistories,
  ) {}

  /** Gives the character's approved, unscheduled items slots from `startDate` on (contract §8). */
  async generate(workspaceId: string, input: GenerateInput): Promise<{ timezone: string; posts: ScheduledPost[]; slotSources: Partial<Record<Platform, SlotSource>> }> {
    const character = await this.characters.get(workspaceId, input.characterId);
    const timezone = this.characters.postingTimezone(character);
    const requested = input.platforms?.map((name) => platformOf(name));
    // Read before the transaction: the history lives in another context's tables, and the embedded database runs one transaction at a time.
    const planned = await this.hoursFor(workspaceId, character.id, requested?.map((r) => r.platform) ?? PUBLISH_PLATFORMS, timezone);
    const created = await inTransaction(this.ds, async (tx) => {
      const scheduled = await this.posts.scheduledContentIds(tx, workspaceId, character.id);
      const items = await this.content.listApproved(workspaceId, { characterId: character.id, excludeIds: scheduled, limit: PLAN_LIMIT }, tx);
      const start = input.startDate instanceof Date ? input.startDate : zonedInstant(input.startDate, 0, timezone);
      const notBefore = new Date(Math.max(start.getTime(), Date.now()));
      const windowEnd = new Date(notBefore.getTime() + (input.days + 1) * DAY_MS);
      // From the start of the first local day: its earlier posts count towards the daily caps.
      const dayStart = zonedInstant(localParts(notBefore, timezone), 0, timezone);
      const existing = await this.posts.plannedTimes(tx, workspaceId, character.id, new Date(dayStart.getTime() - MIN_GAP_MS), windowEnd);
      const targets = items.map((item) => targetOf(item, timezone, requested));
      await this.connections.requirePostable(tx, workspaceId, targets.flatMap((t) => t.platforms));
      const slots = allocateSlots({ targets, existing, notBefore, days: input.days, timezone, hours: planned.hours });
      const byId = new Map(items.map((i) => [i.id, i]));
      return this.insert(tx, slots.map((s) => ({
        id: newId('sch'), workspaceId, contentId: s.contentId, characterId: byId.get(s.contentId)!.characterId,
        platform: s.platform, platformKey: s.platformKey, scheduledAt: s.at,
      })));
    });
    await this.events.changed(...created);
    const used = new Set(created.map((p) => p.platformKey));
    const asked = new Set(requested?.map((r) => r.platform));
    const slotSources = Object.fromEntries(Object.entries(planned.sources).filter(([p]) => used.has(p as Platform) || asked.has(p as Platform)));
    return { timezone, posts: created, slotSources };
  }

  /** Per platform of the plan, its best hours by past engagement once it has enough measured posts, else the defaults. */
  private async hoursFor(workspaceId: string, characterId: string, platforms: readonly Platform[], timezone: string) {
    const hours: Partial<Record<Platform, SlotHours>> = {};
    const sources: Partial<Record<Platform, SlotSource>> = {};
    const wanted = [...new Set(platforms)];
    const histories = await this.histories.historiesOf(workspaceId, characterId, wanted, timezone);
    for (const platform of wanted) {
      const fromHistory = hoursFromHistory(histories[platform] ?? null);
      if (fromHistory) hours[platform] = fromHistory;
      sources[platform] = fromHistory ? 'history' : 'defaults';
    }
    return { hours, sources };
  }

  /**
   * Schedules an approved or published item on its platform, or on the listed ones, each of them
   * connected. A time up to PAST_SCHEDULE_GRACE_MS ago means now; an older one is refused.
   */
  async scheduleContent(workspaceId: string, contentId: string, input: { scheduledAt: Date; platforms?: string[] }): Promise<ScheduledPost[]> {
    const scheduledAt = postTimeFor(input.scheduledAt, new Date());
    const created = await inTransaction(this.ds, async (tx) => {
      const item = await this.publishable(tx, workspaceId, contentId);
      const targets = dedupe(input.platforms ?? [item.platform]).map((name) => ({ name, platform: compatiblePlatform(name, item) }));
      await this.connections.requirePostable(tx, workspaceId, targets);
      return this.insert(tx, targets.map(({ name, platform }) => ({
        id: newId('sch'), workspaceId, contentId, characterId: item.characterId, platform: name, platformKey: platform, scheduledAt,
      })));
    });
    await this.events.changed(...created);
    return created;
  }

  /** The item, if it may be posted at all: approved or published (else 409 `content_not_approved`). */
  async publishable(tx: Tx, workspaceId: string, contentId: string): Promise<ContentItem> {
    const item = await this.content.get(workspaceId, contentId, tx);
    if (item.status !== 'approved' && item.status !== 'published') {
      throw new AppError('content_not_approved', `Only approved or published content can be scheduled; this item is ${item.status}.`, { status: item.status });
    }
    return item;
  }

  list(workspaceId: string, query: PostQuery, page: PageRequest): Promise<Page<ScheduledPost>> {
    return this.posts.page(this.ds.manager, workspaceId, { ...filterOf(query), statuses: query.statuses ?? ['pending'] }, page, 'upcoming');
  }

  history(workspaceId: string, query: PostQuery, page: PageRequest): Promise<Page<ScheduledPost>> {
    const statuses = query.statuses ? query.statuses.filter((s) => FINISHED_STATUSES.includes(s)) : [...FINISHED_STATUSES];
    return this.posts.page(this.ds.manager, workspaceId, { ...filterOf(query), statuses }, page, 'newest');
  }

  async get(workspaceId: string, id: string): Promise<ScheduledPost> {
    const post = await this.posts.find(this.ds.manager, workspaceId, id);
    if (!post) throw AppError.notFound('Scheduled post');
    return post;
  }

  /**
   * Reschedules and/or cancels a post that is still pending. A new time follows the rules of
   * scheduling: not in the past beyond the grace window, and the platform connected (unless the
   * post is cancelled in the same request: cancelling works whatever the connection).
   */
  async update(workspaceId: string, id: string, change: { scheduledAt?: Date; cancel?: boolean }): Promise<ScheduledPost> {
    const scheduledAt = change.scheduledAt ? postTimeFor(change.scheduledAt, new Date()) : undefined;
    const updated = await inTransaction(this.ds, async (tx) => {
      const post = await this.posts.find(tx, workspaceId, id, { lock: true });
      if (!post) throw AppError.notFound('Scheduled post');
      if (post.status !== 'pending') throw AppError.invalidTransition(post.status, change.cancel ? 'cancel' : 'reschedule');
      if (scheduledAt && !change.cancel) await this.connections.requirePostable(tx, workspaceId, [{ name: post.platform, platform: post.platformKey }]);
      let current = post;
      if (scheduledAt) current = (await this.posts.reschedule(tx, workspaceId, id, scheduledAt))!;
      if (change.cancel) current = (await this.posts.cancel(tx, workspaceId, id))!;
      return current;
    });
    await this.events.changed(updated);
    return updated;
  }

  private async insert(tx: Tx, posts: NewPost[]): Promise<ScheduledPost[]> {
    try {
      return await this.posts.insert(tx, posts);
    } catch (err) {
      if (isUniqueViolation(err, 'scheduled_posts_one_pending')) {
        throw new AppError('already_scheduled', 'The content already has a pending post on that platform.');
      }
      throw err;
    }
  }
}

/** A platform name from the client: 400 when it is not one (the DTO checks too; this guards the service). */
function platformOf(name: string, field = 'platforms'): { name: string; platform: Platform } {
  if (!isPlatformName(name)) throw new AppError('validation_failed', `Unknown platform "${name}".`, [{ field, message: `unknown platform ${name}` }]);
  return { name, platform: canonicalPlatform(name) };
}

/**
 * The platform a name means, if it can publish the item's type (contract §6) and, when the item's
 * media are given, those media (the media rules table); else 400 on `field`, saying why.
 */
export function compatiblePlatform(name: string, item: Pick<ContentItem, 'contentType'> & { media?: ContentItem['media'] }, field = 'platforms'): Platform {
  const { platform } = platformOf(name, field);
  // Named as the client spelled it (`x`, `microblog`), in the message as in the details.
  if (!canPublish(platform, item.contentType)) {
    throw new AppError('validation_failed', `${name} cannot publish ${item.contentType} content.`, [{ field, message: `${name} does not take ${item.contentType} content` }]);
  }
  const refusal = item.media ? refusalOf(platform, { contentType: item.contentType, media: item.media }) : null;
  if (refusal) throw new AppError('validation_failed', refusal, [{ field, message: refusal }]);
  return platform;
}

/**
 * An item's platforms for planning: the requested ones it fits, else its own (when it fits); and
 * the local day it was planned for (a week plan's `planned_for`), in the character's zone.
 */
function targetOf(item: ContentItem, timezone: string, requested?: Array<{ name: string; platform: Platform }>): SlotTarget {
  const candidates = requested ?? (isPlatformName(item.platform) ? [{ name: item.platform, platform: canonicalPlatform(item.platform) }] : []);
  const day = item.plannedFor ? localParts(item.plannedFor, timezone) : null;
  return { contentId: item.id, platforms: candidates.filter((c) => refusalOf(c.platform, item) === null), day };
}

function dedupe(names: string[]): string[] {
  const seen = new Set<Platform>();
  return names.filter((n) => {
    const p = platformOf(n).platform;
    if (seen.has(p)) return false;
    seen.add(p);
    return true;
  });
}

function filterOf(q: PostQuery): { characterId?: string; platforms?: Platform[]; from?: Date; to?: Date } {
  return { characterId: q.characterId, platforms: q.platform ? [platformOf(q.platform).platform] : undefined, from: q.from, to: q.to };
}
