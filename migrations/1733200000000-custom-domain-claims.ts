import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Custom domains need proof of ownership (issue 24). A workspace's claim moves out of its branding
 * row into a claim of its own: the A-label domain, its look-alike skeleton, a random token the
 * owner publishes as a TXT record, and the verification status. Several workspaces may hold a
 * pending claim on one domain; only one claim per domain, and per skeleton (so no look-alike of a
 * verified domain), may be verified.
 *
 * Existing domains were never proven, so they start pending with fresh tokens: their branding is
 * not served by domain until their owners publish the record. Their skeletons are computed here
 * with the ASCII part of `domainSkeleton`'s rules; SQL cannot decode an `xn--` label, so every
 * check recomputes a claim's skeleton before it may verify.
 */
export class CustomDomainClaims1733200000000 implements MigrationInterface {
  name = 'CustomDomainClaims1733200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE custom_domain_claims (
        workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        domain text NOT NULL CHECK (domain = lower(domain) AND length(domain) <= 253),
        skeleton text NOT NULL,
        token text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed')),
        failure text CHECK (failure IN ('not_verified_in_time', 'record_missing', 'claimed_elsewhere', 'confusable')),
        last_outcome text CHECK (last_outcome IN ('found', 'absent', 'mismatch', 'unavailable')),
        checks integer NOT NULL DEFAULT 0,
        misses integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        verified_at timestamptz,
        last_checked_at timestamptz,
        next_check_at timestamptz,
        CHECK ((status = 'verified') = (verified_at IS NOT NULL)),
        CHECK ((status = 'failed') = (failure IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX custom_domain_verified_uq ON custom_domain_claims (domain) WHERE status = 'verified'`);
    await q.query(`CREATE UNIQUE INDEX custom_domain_verified_skeleton_uq ON custom_domain_claims (skeleton) WHERE status = 'verified'`);
    await q.query(`CREATE INDEX custom_domain_claims_domain_idx ON custom_domain_claims (domain)`);
    await q.query(`CREATE INDEX custom_domain_claims_skeleton_idx ON custom_domain_claims (skeleton)`);
    await q.query(`CREATE INDEX custom_domain_claims_due_idx ON custom_domain_claims (next_check_at) WHERE next_check_at IS NOT NULL`);
    await q.query(`
      INSERT INTO custom_domain_claims (workspace_id, domain, skeleton, token, next_check_at)
      SELECT workspace_id, lower(custom_domain),
             replace(replace(translate(lower(custom_domain), '01', 'ol'), 'rn', 'm'), 'vv', 'w'),
             replace(gen_random_uuid()::text, '-', ''), now()
        FROM workspace_branding WHERE custom_domain IS NOT NULL`);
    await q.query(`DROP INDEX workspace_branding_domain_uq`);
    await q.query(`ALTER TABLE workspace_branding DROP COLUMN custom_domain`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspace_branding ADD COLUMN custom_domain text`);
    await q.query(`INSERT INTO workspace_branding (workspace_id) SELECT workspace_id FROM custom_domain_claims ON CONFLICT (workspace_id) DO NOTHING`);
    // Back to one holder per domain: the verified claim, or the oldest one.
    await q.query(`
      UPDATE workspace_branding b SET custom_domain = c.domain
        FROM (SELECT DISTINCT ON (domain) workspace_id, domain FROM custom_domain_claims
               ORDER BY domain, (status = 'verified') DESC, created_at) c
       WHERE b.workspace_id = c.workspace_id`);
    await q.query(`CREATE UNIQUE INDEX workspace_branding_domain_uq ON workspace_branding (lower(custom_domain)) WHERE custom_domain IS NOT NULL`);
    await q.query(`DROP TABLE custom_domain_claims`);
  }
}
