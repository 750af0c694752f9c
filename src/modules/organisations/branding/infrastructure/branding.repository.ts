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

/** The custom domain is the workspace's claim's (custom_domain_claims), whatever its status. */
const COLUMNS = 'b.workspace_id, b.display_name, b.logo_key, b.primary_color, b.secondary_color, c.domain AS custom_domain, b.support_email, b.updated_at';
const FROM = 'workspace_branding b LEFT JOIN custom_domain_claims c ON c.workspace_id = b.workspace_id';

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

@Injectable()
export class BrandingRepository {
  async find(m: EntityManager, workspaceId: string): Promise<Branding | null> {
    const rows: BrandingRow[] = await m.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE b.workspace_id = $1`, [workspaceId]);
    return rows[0] ? toBranding(rows[0]) : null;
  }

  /** The branding of the workspace whose claim on `domain` (A-label form) is verified; no other is served. */
  async findByVerifiedDomain(m: EntityManager, domain: string): Promise<Branding | null> {
    const rows: BrandingRow[] = await m.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.domain = $1 AND c.status = 'verified'`, [domain]);
    return rows[0] ? toBranding(rows[0]) : null;
  }

  /**
   * The workspace's row, made empty when it has none, locked for the rest of `tx`: two concurrent
   * updates apply one after the other, each to what the other left.
   */
  async lockOrCreate(tx: Tx, workspaceId: string): Promise<Branding> {
    await tx.query(`INSERT INTO workspace_branding (workspace_id) VALUES ($1) ON CONFLICT (workspace_id) DO NOTHING`, [workspaceId]);
    const rows: BrandingRow[] = await tx.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE b.workspace_id = $1 FOR UPDATE OF b`, [workspaceId]);
    return toBranding(rows[0]);
  }

  /** Writes every field but the custom domain, which is its claim's (DomainClaimsRepository). */
  async save(tx: Tx, b: Branding): Promise<void> {
    await tx.query(
      `UPDATE workspace_branding
       SET display_name = $2, logo_key = $3, primary_color = $4, secondary_color = $5, support_email = $6, updated_at = $7
       WHERE workspace_id = $1`,
      [b.workspaceId, b.displayName, b.logoKey, b.primaryColor, b.secondaryColor, b.supportEmail, b.updatedAt],
    );
  }
}
