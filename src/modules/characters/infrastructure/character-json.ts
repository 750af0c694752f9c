/**
 * The wire shape of a character (contract §5), built by PostgreSQL for the list routes: the driver
 * then parses one JSON value per page instead of converting every column of every row (dates,
 * five JSON sections), which was most of the API's work on those routes. `toCharacterBody` builds
 * the same shape from a domain character for the other routes; the e2e tests compare the two.
 */
export interface CharacterJson {
  id: string;
  name: string;
  niche: string;
  reference_images: string[];
  autopilot: boolean;
  face_consistency_tier: string;
  lora_training_status: string;
  content_count: number;
  last_post_date: string | null;
  follower_count: number;
  is_default: boolean;
  appearance: { age_range: string | null; aesthetic: string | null };
  identity: { location: string | null; occupation: string | null };
  personality: { tone: string | null };
  style: { presets: string[] };
  settings: { autopilot: boolean };
  talking_head_enabled: boolean;
  timezone: string | null;
  face_embedding_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** As `Date.prototype.toISOString`: UTC, milliseconds, a Z. */
const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A row of `characters` (unqualified columns) as its wire JSON, keys in the order of `toCharacterBody`. */
export const CHARACTER_JSON = `json_build_object(
  'id', id, 'name', name, 'niche', niche, 'reference_images', reference_images, 'autopilot', autopilot,
  'face_consistency_tier', face_consistency_tier, 'lora_training_status', lora_training_status, 'content_count', content_count,
  'last_post_date', ${ISO('last_post_date')}, 'follower_count', follower_count, 'is_default', is_default,
  'appearance', json_build_object('age_range', appearance -> 'age_range', 'aesthetic', appearance -> 'aesthetic'),
  'identity', json_build_object('location', identity -> 'location', 'occupation', identity -> 'occupation'),
  'personality', json_build_object('tone', personality -> 'tone'),
  'style', json_build_object('presets', coalesce(style -> 'presets', '[]'::jsonb)),
  'settings', json_build_object('autopilot', autopilot),
  'talking_head_enabled', talking_head_enabled, 'timezone', timezone,
  'face_embedding_updated_at', ${ISO('face_embedding_updated_at')}, 'created_at', ${ISO('created_at')}, 'updated_at', ${ISO('updated_at')})`;
