import type { MigrationInterface, QueryRunner } from 'typeorm';

const ACTIVE = `status = 'active'`;

/**
 * Marketplace: listings, the frozen template snapshot each one sells, purchases and reviews.
 * Browsing reads only active listings, so every browse index is partial on that status; `q` is
 * PostgreSQL full-text search (a stored tsvector and a GIN index), which PGlite runs too (pg_trgm would need
 * an extension loaded into the embedded database).
 * The number of active listings is kept in one counter row by statement-level triggers, so the
 * unfiltered first page does not count 100,000 rows on every request.
 */
export class Marketplace1732400000000 implements MigrationInterface {
  name = 'Marketplace1732400000000';

  async up(q: QueryRunner): Promise<void> {
    await this.listings(q);
    await this.purchasesAndReviews(q);
    await this.activeCounter(q);
  }

  private async listings(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE marketplace_listings (
        id text PRIMARY KEY,
        seller_workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        -- No foreign key: the listing sells its snapshot, and outlives the seller's character.
        character_id text NOT NULL,
        title text NOT NULL,
        niche text NOT NULL,
        -- The niche as the filter compares it; a plain column, so the browse index can answer alone.
        niche_key text GENERATED ALWAYS AS (lower(niche)) STORED,
        price numeric(9, 2) NOT NULL CHECK (price > 0 AND price <= 1000000),
        currency text NOT NULL CHECK (currency IN ('credits', 'USD', 'EUR', 'GBP')),
        price_credits integer NOT NULL CHECK (price_credits > 0),
        license_type text NOT NULL CHECK (license_type IN ('personal', 'commercial', 'exclusive')),
        status text NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'sold', 'removed')),
        preview_images jsonb NOT NULL DEFAULT '[]',
        description text NOT NULL DEFAULT '',
        template_image_urls jsonb NOT NULL DEFAULT '[]',
        rating_sum integer NOT NULL DEFAULT 0 CHECK (rating_sum >= 0),
        rating_count integer NOT NULL DEFAULT 0 CHECK (rating_count >= 0),
        rating numeric(3, 2) GENERATED ALWAYS AS
          (CASE WHEN rating_count > 0 THEN round(rating_sum::numeric / rating_count, 2) END) STORED,
        sales_count integer NOT NULL DEFAULT 0 CHECK (sales_count >= 0),
        credits_earned bigint NOT NULL DEFAULT 0 CHECK (credits_earned >= 0),
        -- Stored, so matching a phrase rechecks this value instead of parsing the text again per row.
        search tsvector GENERATED ALWAYS AS (to_tsvector('english', title || ' ' || niche || ' ' || description)) STORED,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One live (draft, active or paused) listing per character.
    await q.query(`CREATE UNIQUE INDEX marketplace_listings_live_character_uq ON marketplace_listings (character_id)
      WHERE status IN ('draft', 'active', 'paused')`);
    await q.query(`CREATE INDEX marketplace_listings_seller_idx ON marketplace_listings (seller_workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX marketplace_listings_newest_idx ON marketplace_listings (created_at DESC, id DESC) WHERE ${ACTIVE}`);
    await q.query(`CREATE INDEX marketplace_listings_price_idx ON marketplace_listings (price_credits, id) WHERE ${ACTIVE}`);
    await q.query(`CREATE INDEX marketplace_listings_rating_idx ON marketplace_listings (rating DESC NULLS LAST, rating_count DESC, id DESC) WHERE ${ACTIVE}`);
    await q.query(`CREATE INDEX marketplace_listings_popular_idx ON marketplace_listings (sales_count DESC, id DESC) WHERE ${ACTIVE}`);
    // Covering: a niche + price filter counts and picks its page from the index alone (index-only scans).
    await q.query(`CREATE INDEX marketplace_listings_niche_price_idx ON marketplace_listings (niche_key, price_credits) INCLUDE (created_at, id) WHERE ${ACTIVE}`);
    await q.query(`CREATE INDEX marketplace_listings_search_idx ON marketplace_listings USING gin (search) WHERE ${ACTIVE}`);
  }

  private async purchasesAndReviews(q: QueryRunner): Promise<void> {
    // What buyers receive, kept apart so the listing rows browsing reads stay narrow: only purchases
    // and updates read it.
    await q.query(`
      CREATE TABLE marketplace_templates (
        listing_id text PRIMARY KEY REFERENCES marketplace_listings(id) ON DELETE CASCADE,
        template jsonb NOT NULL
      )`);

    await q.query(`
      CREATE TABLE marketplace_purchases (
        id text PRIMARY KEY,
        listing_id text NOT NULL REFERENCES marketplace_listings(id) ON DELETE CASCADE,
        buyer_workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        seller_workspace_id text NOT NULL,
        -- The clone made in the buyer's workspace; the buyer may delete it later.
        character_id text NOT NULL,
        price_credits integer NOT NULL CHECK (price_credits > 0),
        seller_credits integer NOT NULL CHECK (seller_credits >= 0),
        license_type text NOT NULL CHECK (license_type IN ('personal', 'commercial', 'exclusive')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX marketplace_purchases_once_uq ON marketplace_purchases (listing_id, buyer_workspace_id)`);
    await q.query(`CREATE INDEX marketplace_purchases_buyer_idx ON marketplace_purchases (buyer_workspace_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE marketplace_reviews (
        id text PRIMARY KEY,
        listing_id text NOT NULL REFERENCES marketplace_listings(id) ON DELETE CASCADE,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id text NOT NULL,
        rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
        comment text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX marketplace_reviews_once_uq ON marketplace_reviews (listing_id, workspace_id)`);
  }

  private async activeCounter(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE marketplace_stats (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        active_listings bigint NOT NULL DEFAULT 0 CHECK (active_listings >= 0)
      )`);
    await q.query(`INSERT INTO marketplace_stats (singleton, active_listings) VALUES (true, 0)`);
    // One counter update per statement, not per row: a bulk insert of 100,000 listings costs one.
    await q.query(`
      CREATE FUNCTION marketplace_count_active() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE delta bigint := 0;
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          SELECT delta - count(*) INTO delta FROM old_rows WHERE status = 'active';
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          SELECT delta + count(*) INTO delta FROM new_rows WHERE status = 'active';
        END IF;
        IF delta <> 0 THEN
          UPDATE marketplace_stats SET active_listings = active_listings + delta WHERE singleton;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER marketplace_listings_count_insert AFTER INSERT ON marketplace_listings
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION marketplace_count_active()`);
    await q.query(`CREATE TRIGGER marketplace_listings_count_update AFTER UPDATE ON marketplace_listings
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION marketplace_count_active()`);
    await q.query(`CREATE TRIGGER marketplace_listings_count_delete AFTER DELETE ON marketplace_listings
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION marketplace_count_active()`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['marketplace_reviews', 'marketplace_purchases', 'marketplace_templates', 'marketplace_listings', 'marketplace_stats']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
    await q.query(`DROP FUNCTION IF EXISTS marketplace_count_active()`);
  }
}
