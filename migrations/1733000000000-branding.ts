import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * White-label branding (contract §14): at most one row per workspace, made on its first update.
 * A custom domain names one workspace only, compared lowercase (hosts are case-insensitive), so
 * `GET /branding?domain=` can never answer two workspaces' branding.
 */
export class Branding1733000000000 implements MigrationInterface {
  name = 'Branding1733000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspace_branding (
        workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        display_name text,
        logo_key text,
        primary_color text CHECK (primary_color ~ '^#[0-9A-Fa-f]{6}$'),
        secondary_color text CHECK (secondary_color ~ '^#[0-9A-Fa-f]{6}$'),
        custom_domain text,
        support_email text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX workspace_branding_domain_uq ON workspace_branding (lower(custom_domain)) WHERE custom_domain IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE workspace_branding`);
  }
}
