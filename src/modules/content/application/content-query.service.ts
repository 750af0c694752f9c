import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Page, type PageRequest } from '../../../core/index.js';
import { CharactersFacade } from '../../characters/index.js';
import type { ContentItem } from '../domain/content-item.js';
import { calendarDay, calendarRange, formatDate, localDay } from '../domain/schedule-time.js';
import { ContentItemRepository, type ContentFilter, type QueueFilter } from '../infrastructure/content-item.repository.js';
import { CalendarPosts } from './calendar-posts.js';
import type { CalendarPost } from './calendar-posts.js';
import { ContentViews, type ItemView } from './content-views.js';

/** One local day of the calendar: its planned items and scheduled posts. */
export interface CalendarDay {
  date: string;
  items: ItemView[];
  scheduledPosts: CalendarPost[];
}

export interface Calendar {
  from: string;
  to: string;
  timezone: string;
  days: CalendarDay[];
}

export interface CalendarRequest {
  from?: string;
  to?: string;
  characterId?: string;
}

/** Reading content: one item, the queue, the calendar, a video's status. */
@Injectable()
export class ContentQueryService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly characters: CharactersFacade,
    private readonly posts: CalendarPosts,
    private readonly views: ContentViews,
  ) {}

  async get(workspaceId: string, id: string): Promise<ItemView> {
    return this.views.view(workspaceId, await this.load(workspaceId, id));
  }

  async queue(workspaceId: string, filter: QueueFilter, page: PageRequest): Promise<Page<ItemView>> {
    // A filter on a character the caller cannot see is answered like the missing character it is.
    if (filter.characterId) await this.characters.get(workspaceId, filter.characterId);
    const found = await this.items.list(this.ds.manager, workspaceId, filter, page);
    return { ...found, items: await this.views.views(workspaceId, found.items) };
  }

  /** Every item of the workspace that the filter admits, newest first. */
  async list(workspaceId: string, filter: ContentFilter, page: PageRequest): Promise<Page<ItemView>> {
    if (filter.characterId) await this.characters.get(workspaceId, filter.characterId);
    const found = await this.items.list(this.ds.manager, workspaceId, filter, page, 'newest');
    return { ...found, items: await this.views.views(workspaceId, found.items) };
  }

  /**
   * Days from `from` to `to` in the character's zone (else the default), each with its items (a
   * published item on its local publish day, the others on their planned day) and scheduled posts.
   */
  async calendar(workspaceId: string, req: CalendarRequest): Promise<Calendar> {
    const character = req.characterId ? await this.characters.get(workspaceId, req.characterId) : null;
    const timeZone = this.characters.postingTimezone(character);
    const range = calendarRange(req.from, req.to, timeZone, new Date());
    const scope = { startsAt: range.startsAt, endsBefore: range.endsBefore, characterId: req.characterId };
    const shown = await this.items.listForCalendar(this.ds.manager, workspaceId, scope);
    const views = await this.views.views(workspaceId, shown);
    const posts = await this.posts.between(workspaceId, scope);
    const itemsByDay = groupBy(views, (v) => calendarDay(v.item, timeZone)!);
    const postsByDay = groupBy(posts, (p) => localDay(p.at, timeZone));
    const days = [];
    for (let day = range.from; day <= range.to; day++) {
      days.push({ date: formatDate(day), items: itemsByDay.get(day) ?? [], scheduledPosts: postsByDay.get(day) ?? [] });
    }
    return { from: formatDate(range.from), to: formatDate(range.to), timezone: timeZone, days };
  }

  /** Only video items have a video status; any other id is answered as a missing video. */
  async videoStatus(workspaceId: string, id: string): Promise<ItemView> {
    const item = await this.items.find(this.ds.manager, workspaceId, id);
    if (!item || item.kind !== 'video') throw AppError.notFound('Video');
    return this.views.view(workspaceId, item);
  }

  private async load(workspaceId: string, id: string): Promise<ContentItem> {
    const item = await this.items.find(this.ds.manager, workspaceId, id);
    if (!item) throw AppError.notFound('Content');
    return item;
  }
}

function groupBy<T>(list: T[], keyOf: (value: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  list.forEach((value) => {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  });
  return groups;
}
