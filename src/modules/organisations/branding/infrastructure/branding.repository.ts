import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Tx } from '../../../../platform/database/index.js';
import type { Branding } from '../domain/branding.js';

interface BrandingRow {
  workspace_id: string;
  display_name: string | null;
  logo_key: string | null;
  primary_color: string | null;
  secondary_color: string | null;
  custom_domain: string | null;
  support_email: string | null;
  updated_at: Date;
}

const COLUMNS = 'workspace_id, display_name, logo_key, primary_color, secondary_color, custom_domain, support_email, updated_at';

function toBranding(r: BrandingRow): Branding {
  return {
    workspaceId: r.workspace_id,
    displayName: r.display_name,
    logoKey: r.logo_key,
    primaryColor: r.primary_color,
    secondaryColor: r.secondary_color,
    customDomain: r.custom_domain,
    supportEmail: r.support_email,
    updatedAt: r.updated_at,
  };
}

/** The unique index a second claim of one custom domain runs into. */
export const DOMAIN_INDEX = 'workspace_branding_domain_uq';

@Injectable()
export class BrandingRepository {
  async find(m: EntityManager, workspaceId: string): Promise<Branding | null> {
    const rows: BrandingRow[] = await m.query(`SELECT ${COLUMNS} FROM workspace_branding WHERE workspace_id = $1`, [workspaceId]);
    return rows[0] ? toBranding(rows[0]) : null;
  }

  async findByDomain(m: EntityManager, domain: string): Promise<Branding | null> {
    const rows: BrandingRow[] = await m.query(`SELECT ${COLUMNS} FROM workspace_branding WHERE lower(custom_domain) = lower($1)`, [domain]);
    return rows[0] ? toBranding(rows[0]) : null;
  }

  /**
   * The workspace's row, made empty when it has none, locked for the rest of `tx`: two concurrent
   * updates apply one after the other, each to what the other left.
   */
  async lockOrCreate(tx: Tx, workspaceId: string): Promise<Branding> {
    await tx.query(`INSERT INTO workspace_branding (workspace_id) VALUES ($1) ON CONFLICT (workspace_id) DO NOTHING`, [workspaceId]);
    const rows: BrandingRow[] = await tx.query(`SELECT ${COLUMNS} FROM workspace_branding WHERE workspace_id = $1 FOR UPDATE`, [workspaceId]);
    return toBranding(rows[0]);
  }

  /** Writes every field; a custom domain another workspace holds fails on DOMAIN_INDEX. */
  async save(tx: Tx, b: Branding): Promise<void> {
    await tx.query(
      `UPDATE workspace_branding
       SET display_name = $2, logo_key = $3, primary_color = $4, secondary_color = $5, custom_domain = $6, support_email = $7, updated_at = $8
       WHERE workspace_id = $1`,
      [b.workspaceId, b.displayName, b.logoKey, b.primaryColor, b.secondaryColor, b.customDomain, b.supportEmail, b.updatedAt],
    );
  }
}
