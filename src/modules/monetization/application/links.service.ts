import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Caller, type Page, type PageRequest, type PlatformName } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { destinationProblem, generateShortcode, type AffiliateLink, type LinkWithRevenue } from '../domain/affiliate-link.js';
import { seriesDays } from '../domain/clicks.js';
import { ClicksRepository } from '../infrastructure/clicks.repository.js';
import { LinksRepository, SHORTCODE_CONSTRAINT, type LinkChanges } from '../infrastructure/links.repository.js';
import { LinkTargets } from './link-targets.js';

/** Draws of a generated shortcode before giving up (one clash in 2^47 draws is already rare). */
const GENERATE_ATTEMPTS = 5;

export interface LinkInput {
  platform?: PlatformName | null;
  destinationUrl?: string;
  shortcode?: string;
}

export interface ClickSeries {
  linkId: string;
  days: Array<{ date: string; clicks: number }>;
  total: number;
}

function taken(shortcode: string): AppError {
  return new AppError('shortcode_taken', `The shortcode ${shortcode} is already taken; choose another or leave it out to get a generated one.`, { field: 'shortcode' });
}

/** A character's affiliate links (docs/monetization.md): editors write, every member reads. */
@Injectable()
export class LinksService {
  private readonly ownHosts: string[];
  private readonly shortUrlBase: string;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly links: LinksRepository,
    private readonly clicks: ClicksRepository,
    private readonly characters: CharactersFacade,
    private readonly audit: AuditLog,
    private readonly targets: LinkTargets,
    config: AppConfig,
  ) {
    // Our own addresses: the API's public URL and the app's (a link there could loop through us).
    this.ownHosts = [config.publicUrl, config.appUrl].map((u) => new URL(u).hostname);
    this.shortUrlBase = `${config.publicUrl.replace(/\/+$/, '')}/api/v1/l/`;
  }

  shortUrl(shortcode: string): string {
    return this.shortUrlBase + shortcode;
  }

  async create(caller: Caller, characterId: string, input: LinkInput & { destinationUrl: string }): Promise<LinkWithRevenue> {
    await this.characters.get(caller.workspaceId, characterId);
    this.checkDestination(input.destinationUrl);
    const now = new Date();
    for (let attempt = 1; ; attempt += 1) {
      const shortcode = input.shortcode ?? generateShortcode();
      const link: AffiliateLink = {
        id: newId('lnk'), workspaceId: caller.workspaceId, characterId, platform: input.platform ?? null,
        destinationUrl: input.destinationUrl, shortcode, clickCount: 0, createdAt: now, updatedAt: now,
      };
      try {
        await inTransaction(this.ds, async (tx) => {
          await this.characters.get(caller.workspaceId, characterId, tx);
          await this.links.insert(tx, link);
          await this.record(tx, caller, 'link.created', link.id, { character_id: characterId, shortcode, destination_url: link.destinationUrl });
        });
      } catch (err) {
        if (!isUniqueViolation(err, SHORTCODE_CONSTRAINT)) throw err;
        if (input.shortcode !== undefined || attempt >= GENERATE_ATTEMPTS) throw taken(shortcode);
        continue;
      }
      this.targets.drop(shortcode);
      return { ...link, revenue: 0 };
    }
  }

  async list(workspaceId: string, characterId: string, page: PageRequest): Promise<Page<LinkWithRevenue>> {
    await this.characters.get(workspaceId, characterId);
    return this.links.list(this.ds.manager, workspaceId, characterId, page);
  }

  async get(workspaceId: string, id: string): Promise<LinkWithRevenue> {
    const link = await this.links.find(this.ds.manager, workspaceId, id);
    if (!link) throw AppError.notFound('Link');
    return link;
  }

  async update(caller: Caller, id: string, input: LinkInput): Promise<LinkWithRevenue> {
    if (input.destinationUrl !== undefined) this.checkDestination(input.destinationUrl);
    const changes: LinkChanges = {};
    if (input.platform !== undefined) changes.platform = input.platform;
    if (input.destinationUrl !== undefined) changes.destinationUrl = input.destinationUrl;
    if (input.shortcode !== undefined) changes.shortcode = input.shortcode;
    let previous: string;
    try {
      previous = await inTransaction(this.ds, async (tx) => {
        const before = await this.links.update(tx, caller.workspaceId, id, changes, new Date());
        if (!before) throw AppError.notFound('Link');
        await this.record(tx, caller, 'link.updated', id, changesForAudit(changes));
        return before.previousShortcode;
      });
    } catch (err) {
      if (isUniqueViolation(err, SHORTCODE_CONSTRAINT)) throw taken(input.shortcode ?? '');
      throw err;
    }
    this.targets.drop(previous, ...(input.shortcode ? [input.shortcode] : []));
    return this.get(caller.workspaceId, id);
  }

  async delete(caller: Caller, id: string): Promise<void> {
    const gone = await inTransaction(this.ds, async (tx) => {
      const deleted = await this.links.delete(tx, caller.workspaceId, id);
      if (!deleted) throw AppError.notFound('Link');
      await this.record(tx, caller, 'link.deleted', id, { character_id: deleted.characterId, shortcode: deleted.shortcode });
      return deleted;
    });
    this.targets.drop(gone.shortcode);
  }

  /** The link's flushed clicks per UTC day, every day of the range listed (zero included). */
  async series(workspaceId: string, id: string, range: { from?: string; to?: string }): Promise<ClickSeries> {
    const days = seriesDays(range, new Date());
    await this.get(workspaceId, id);
    const counted = await this.clicks.series(this.ds.manager, workspaceId, id, days[0], days[days.length - 1]);
    const points = days.map((date) => ({ date, clicks: counted.get(date) ?? 0 }));
    return { linkId: id, days: points, total: points.reduce((n, p) => n + p.clicks, 0) };
  }

  private checkDestination(url: string): void {
    const problem = destinationProblem(url, this.ownHosts);
    if (problem) throw new AppError('validation_failed', `${problem[0].toUpperCase()}${problem.slice(1)}.`, [{ field: 'destination_url', message: problem }]);
  }

  private record(tx: Tx, caller: Caller, action: 'link.created' | 'link.updated' | 'link.deleted', id: string, details: Record<string, unknown>): Promise<void> {
    return this.audit.record(tx, { workspaceId: caller.workspaceId, actorUserId: caller.userId, action, targetType: 'affiliate_link', targetId: id, details });
  }
}

function changesForAudit(c: LinkChanges): Record<string, unknown> {
  return {
    ...(c.platform !== undefined ? { platform: c.platform } : {}),
    ...(c.destinationUrl !== undefined ? { destination_url: c.destinationUrl } : {}),
    ...(c.shortcode !== undefined ? { shortcode: c.shortcode } : {}),
  };
}
