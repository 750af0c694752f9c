import { isoTimestampSql } from '../../../platform/database/index.js';

/**
 * The wire shape of a listing (contract §9), built by PostgreSQL for the hot reads (browse and the
 * detail page): the driver then parses one JSON value per page instead of converting every column
 * of every row, which was most of the API's CPU on those routes. `toListingBody` builds the same
 * shape from a domain listing for the writes; the e2e tests compare the two.
 */
export interface ListingJson {
  id: string;
  character_id: string;
  seller_workspace_id: string;
  title: string;
  niche: string;
  price: number;
  currency: string;
  price_credits: number;
  license_type: string;
  status: string;
  preview_images: string[];
  description: string;
  rating: number | null;
  rating_count: number;
  sales_count: number;
  created_at: string;
  updated_at: string;
}

const ISO = isoTimestampSql;

/** A listing row of `marketplace_listings` (unqualified columns) as its wire JSON. */
export const LISTING_JSON = `json_build_object(
  'id', id, 'character_id', character_id, 'seller_workspace_id', seller_workspace_id, 'title', title, 'niche', niche,
  'price', price::float8, 'currency', currency, 'price_credits', price_credits, 'license_type', license_type, 'status', status,
  'preview_images', CASE WHEN jsonb_array_length(preview_images) > 0 THEN preview_images ELSE template_image_urls END,
  'description', description, 'rating', rating::float8, 'rating_count', rating_count, 'sales_count', sales_count,
  'created_at', ${ISO('created_at')}, 'updated_at', ${ISO('updated_at')})`;
