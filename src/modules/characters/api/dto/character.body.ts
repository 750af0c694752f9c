import { JobDoc } from '../../../../platform/http/index.js';
import { ApiProperty } from '@nestjs/swagger';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import type { Character, ReferenceImage } from '../../domain/character.js';
import { effectiveTimezone } from '../../domain/posting-timezone.js';

/**
 * A character's reference image URLs as a client sees them: its own uploads (files in its folder)
 * signed afresh, other URLs as given. Only the character's own folder is signed, so listing another
 * workspace's plain media URL gets nobody a signed one.
 */
export function signedReferenceImages(characterId: string, kept: string[], urls: MediaUrls): string[] {
  const owned = [`characters/${characterId}/`];
  return kept.map((u) => urls.signKept(u, owned));
}

/**
 * A list row (the wire shape the repository built) as a client sees it: its own uploads signed, and
 * the zone its posts use (`timezone`) with where it comes from (`timezone_source`), the same two
 * fields `toCharacterBody` shows. One copy of the row, however many fields change.
 */
export function listRowBody<T extends { id: string; reference_images: string[]; timezone: string | null; identity: { location: string | null } }>(
  row: T,
  urls: MediaUrls,
  appZone: string,
): T & { timezone_source: string } {
  const { zone, source } = effectiveTimezone(row, appZone);
  const images = row.reference_images.length === 0 ? row.reference_images : signedReferenceImages(row.id, row.reference_images, urls);
  return { ...row, reference_images: images, timezone: zone, timezone_source: source };
}

/** Reference image URLs a client sent back (possibly signed ones it was given), as the record keeps them. */
export function plainReferenceImages<T extends { referenceImages?: string[] }>(input: T, urls: MediaUrls): T {
  return input.referenceImages ? { ...input, referenceImages: input.referenceImages.map((u) => urls.plain(u)) } : input;
}

/**
 * The wire shape of a character (contract §5). The face embedding itself never leaves the service.
 * `timezone` is the zone its posts use (`appZone` when neither it nor its location names one), and
 * `timezone_source` says which (set, location, default), so the two never disagree.
 */
export function toCharacterBody(c: Character, urls: MediaUrls, appZone: string): Record<string, unknown> {
  const zone = effectiveTimezone(c, appZone);
  return {
    id: c.id,
    name: c.name,
    niche: c.niche,
    reference_images: signedReferenceImages(c.id, c.referenceImages, urls),
    autopilot: c.autopilot,
    face_consistency_tier: c.faceConsistencyTier,
    lora_training_status: c.loraTrainingStatus,
    content_count: c.contentCount,
    last_post_date: c.lastPostDate?.toISOString() ?? null,
    follower_count: c.followerCount,
    is_default: c.isDefault,
    appearance: { age_range: c.appearance.age_range ?? null, aesthetic: c.appearance.aesthetic ?? null },
    identity: { location: c.identity.location ?? null, occupation: c.identity.occupation ?? null },
    personality: { tone: c.personality.tone ?? null },
    style: { presets: c.style.presets ?? [] },
    settings: { autopilot: c.autopilot },
    talking_head_enabled: c.talkingHeadEnabled,
    timezone: zone.zone,
    timezone_source: zone.source,
    face_embedding_updated_at: c.faceEmbeddingUpdatedAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function toReferenceImageBody(r: ReferenceImage, urls: MediaUrls): Record<string, unknown> {
  return { id: r.id, url: urls.sign(r.storageKey), type: r.type, width: r.width, height: r.height, created_at: r.createdAt.toISOString() };
}

// Documentation shapes for the OpenAPI document.

class AppearanceBody {
  @ApiProperty({ type: String, nullable: true }) age_range!: string | null;
  @ApiProperty({ type: String, nullable: true }) aesthetic!: string | null;
}
class IdentityBody {
  @ApiProperty({ type: String, nullable: true }) location!: string | null;
  @ApiProperty({ type: String, nullable: true }) occupation!: string | null;
}
class PersonalityBody {
  @ApiProperty({ type: String, nullable: true }) tone!: string | null;
}
class StyleBody {
  @ApiProperty({ type: [String] }) presets!: string[];
}
class SettingsBody {
  @ApiProperty() autopilot!: boolean;
}

export class CharacterBody {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() niche!: string;
  @ApiProperty({ type: [String], description: 'Image URLs, uploads included (uploads as signed URLs that expire; fresh ones on every read).' }) reference_images!: string[];
  @ApiProperty() autopilot!: boolean;
  @ApiProperty({ example: 'ip_adapter' }) face_consistency_tier!: string;
  @ApiProperty({ example: 'none' }) lora_training_status!: string;
  @ApiProperty({ type: 'integer' }) content_count!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_post_date!: string | null;
  @ApiProperty({ type: 'integer' }) follower_count!: number;
  @ApiProperty() is_default!: boolean;
  @ApiProperty({ type: AppearanceBody }) appearance!: AppearanceBody;
  @ApiProperty({ type: IdentityBody }) identity!: IdentityBody;
  @ApiProperty({ type: PersonalityBody }) personality!: PersonalityBody;
  @ApiProperty({ type: StyleBody }) style!: StyleBody;
  @ApiProperty({ type: SettingsBody }) settings!: SettingsBody;
  @ApiProperty() talking_head_enabled!: boolean;
  @ApiProperty({ example: 'Europe/Lisbon', description: 'The zone its posts use: its own setting, else the zone its location names, else the default.' }) timezone!: string;
  @ApiProperty({ enum: ['set', 'location', 'default'], description: 'Where timezone comes from.' }) timezone_source!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the face embedding was last recomputed.' })
  face_embedding_updated_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class CharacterEnvelope {
  @ApiProperty({ type: CharacterBody }) character!: CharacterBody;
}

export class CharacterListBody {
  @ApiProperty({ type: [CharacterBody] }) characters!: CharacterBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

class ReferenceImageBody {
  @ApiProperty({ example: 'ref_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: ['primary', 'reference'] }) type!: string;
  @ApiProperty({ type: 'integer' }) width!: number;
  @ApiProperty({ type: 'integer' }) height!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ReferenceImageUploadBody {
  @ApiProperty({ type: ReferenceImageBody }) reference_image!: ReferenceImageBody;
  @ApiProperty({ type: CharacterBody }) character!: CharacterBody;
  @ApiProperty({ type: JobDoc, description: 'The recompute_face_embedding job.' }) job!: JobDoc;
}
