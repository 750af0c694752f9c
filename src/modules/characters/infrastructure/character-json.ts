import { isoTimestampSql } from '../../../platform/database/index.js';

/**
 * The wire shape of a character (contract §5) for the list routes, read straight from plain columns:
 * timestamps come formatted, and of the five JSON sections only the fields the shape shows. Building
 * the whole page as one JSON value in PostgreSQL (json_build_object per row) cost the database
 * 0.57-0.83 ms per page of 20 against 0.24-0.28 ms for these columns, and the API no less (it parsed and
 * re-serialised the page). `toCharacterBody` builds the same shape from a domain character for the
 * other routes; the e2e tests compare the two.
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

const ISO = isoTimestampSql;

/**
 * The columns of `characters` (unqualified) a list row needs, each in the cheapest form to read:
 * plain scalars, timestamps already formatted, only the section fields the wire shape shows.
 */
export const CHARACTER_JSON_COLUMNS = `id, name, niche, reference_images, autopilot, face_consistency_tier, lora_training_status,
  content_count, ${ISO('last_post_date')} AS last_post_date, follower_count, is_default,
  appearance ->> 'age_range' AS age_range, appearance ->> 'aesthetic' AS aesthetic,
  identity ->> 'location' AS location, identity ->> 'occupation' AS occupation, personality ->> 'tone' AS tone,
  style -> 'presets' AS presets, talking_head_enabled, timezone,
  ${ISO('face_embedding_updated_at')} AS face_embedding_updated_at, ${ISO('created_at')} AS created_at, ${ISO('updated_at')} AS updated_at`;

/** A row read with CHARACTER_JSON_COLUMNS: the wire scalars as they are, the sections' fields flat. */
export type CharacterJsonRow = Omit<CharacterJson, 'appearance' | 'identity' | 'personality' | 'style' | 'settings'> & {
  age_range: string | null;
  aesthetic: string | null;
  location: string | null;
  occupation: string | null;
  tone: string | null;
  presets: string[] | null;
};

/** The wire shape of a row read with CHARACTER_JSON_COLUMNS, keys in the order of `toCharacterBody`. */
export function toCharacterJson(r: CharacterJsonRow): CharacterJson {
  return {
    id: r.id,
    name: r.name,
    niche: r.niche,
    reference_images: r.reference_images,
    autopilot: r.autopilot,
    face_consistency_tier: r.face_consistency_tier,
    lora_training_status: r.lora_training_status,
    content_count: r.content_count,
    last_post_date: r.last_post_date,
    follower_count: r.follower_count,
    is_default: r.is_default,
    appearance: { age_range: r.age_range, aesthetic: r.aesthetic },
    identity: { location: r.location, occupation: r.occupation },
    personality: { tone: r.tone },
    style: { presets: r.presets ?? [] },
    settings: { autopilot: r.autopilot },
    talking_head_enabled: r.talking_head_enabled,
    timezone: r.timezone,
    face_embedding_updated_at: r.face_embedding_updated_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
