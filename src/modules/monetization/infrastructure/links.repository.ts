import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import { changedRows, PreparedReads, type Tx } from '../../../platform/database/index.js';
import type { AffiliateLink, LinkWithRevenue } from '../domain/affiliate-link.js';
import { AffiliateLinkEntity } from './monetization.entities.js';

export const SHORTCODE_CONSTRAINT = 'affiliate_links_shortcode_uq';

export type LinkChanges = Partial<Pick<AffiliateLink, 'platform' | 'destinationUrl' | 'shortcode'>>;

interface LinkRow {
  id: string;
  workspace_id: string;
  character_id: string;
  platform: AffiliateLink['platform'];
  destination_url: string;
  shortcode: string;
  click_count: string | number;
  revenue: string | number;
  created_at: Date;
  updated_at: Date;
}

function toLink(r: LinkRow): LinkWithRevenue {
  return {
    id: r.id, workspaceId: r.workspace_id, characterId: r.character_id, platform: r.platform, destinationUrl: r.destination_url,
    shortcode: r.shortcode, clickCount: Number(r.click_count), revenue: Number(r.revenue), createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** A link's columns and the revenue entries that name it, summed. */
const LINK_COLUMNS = `l.*, COALESCE((SELECT SUM(r.amount) FROM revenue_entries r WHERE r.link_id = l.id AND r.workspace_id = l.workspace_id), 0) AS revenue`;

/** What the public redirect needs of a link. */
export interface LinkTarget {
  id: string;
  destinationUrl: string;
}

/** Affiliate links. Every method but `target` is scoped by the workspace id. */
@Injectable()
export class LinksRepository {
  constructor(private readonly prepared: PreparedReads) {}

  async insert(tx: Tx, link: AffiliateLink): Promise<void> {
    await tx.getRepository(AffiliateLinkEntity).insert({ ...link, clickCount: String(link.clickCount) });
  }

  async find(m: Tx, workspaceId: string, id: string): Promise<LinkWithRevenue | null> {
    const rows: LinkRow[] = await m.query(`SELECT ${LINK_COLUMNS} FROM affiliate_links l WHERE l.id = $1 AND l.workspace_id = $2`, [id, workspaceId]);
    return rows[0] ? toLink(rows[0]) : null;
  }

  /** A character's links, newest first. */
  async list(m: Tx, workspaceId: string, characterId: string, req: PageRequest): Promise<Page<LinkWithRevenue>> {
    const [rows, count] = await Promise.all([
      m.query<LinkRow[]>(
        `SELECT ${LINK_COLUMNS} FROM affiliate_links l WHERE l.workspace_id = $1 AND l.character_id = $2
         ORDER BY l.created_at DESC, l.id DESC LIMIT $3 OFFSET $4`,
        [workspaceId, characterId, req.pageSize, offsetOf(req)],
      ),
      m.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM affiliate_links WHERE workspace_id = $1 AND character_id = $2', [workspaceId, characterId]),
    ]);
    return { items: rows.map(toLink), page: req.page, pageSize: req.pageSize, total: count[0].n };
  }

  /** Applies `changes`; answers the link's shortcode before them, or null when there is no such link. */
  async update(tx: Tx, workspaceId: string, id: string, changes: LinkChanges, now: Date): Promise<{ previousShortcode: string } | null> {
    const before: Array<{ shortcode: string }> = await tx.query('SELECT shortcode FROM affiliate_links WHERE id = $1 AND workspace_id = $2 FOR UPDATE', [id, workspaceId]);
    if (!before[0]) return null;
    await tx.getRepository(AffiliateLinkEntity).update({ id, workspaceId }, { ...changes, updatedAt: now });
    return { previousShortcode: before[0].shortcode };
  }

  /** Removes the link; answers it as it was, or null when there was none. */
  async delete(tx: Tx, workspaceId: string, id: string): Promise<{ shortcode: string; characterId: string } | null> {
    const rows = await changedRows<{ shortcode: string; character_id: string }>(tx, 'DELETE FROM affiliate_links WHERE id = $1 AND workspace_id = $2 RETURNING shortcode, character_id', [id, workspaceId]);
    return rows[0] ? { shortcode: rows[0].shortcode, characterId: rows[0].character_id } : null;
  }

  /**
   * The link a public shortcode names, in any workspace: the redirect `/l/{shortcode}` carries no
   * workspace (shortcodes are unique across the service). A prepared statement: the hot path.
   */
  async target(shortcode: string): Promise<LinkTarget | null> {
    const rows = await this.prepared.rows<{ id: string; destination_url: string }>(
      'monetization_link_target',
      'SELECT id, destination_url FROM affiliate_links WHERE shortcode = $1',
      [shortcode],
    );
    return rows[0] ? { id: rows[0].id, destinationUrl: rows[0].destination_url } : null;
  }

  async shortcodeExists(m: Tx, shortcode: string): Promise<boolean> {
    const rows: unknown[] = await m.query('SELECT 1 FROM affiliate_links WHERE shortcode = $1', [shortcode]);
    return rows.length > 0;
  }
}
