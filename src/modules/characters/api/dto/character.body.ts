import { ApiProperty } from '@nestjs/swagger';
import type { Character, ReferenceImage } from '../../domain/character.js';

/** The wire shape of a character (contract §5). The face embedding itself never leaves the service. */
export function toCharacterBody(c: Character): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    niche: c.niche,
    reference_images: c.referenceImages,
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
    timezone: c.timezone,
    face_embedding_updated_at: c.faceEmbeddingUpdatedAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function toReferenceImageBody(r: ReferenceImage): Record<string, unknown> {
  return { id: r.id, url: r.url, type: r.type, width: r.width, height: r.height, created_at: r.createdAt.toISOString() };
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
  @ApiProperty({ type: [String], description: 'Image URLs, uploads included.' }) reference_images!: string[];
  @ApiProperty() autopilot!: boolean;
  @ApiProperty({ example: 'ip_adapter' }) face_consistency_tier!: string;
  @ApiProperty({ example: 'none' }) lora_training_status!: string;
  @ApiProperty() content_count!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_post_date!: string | null;
  @ApiProperty() follower_count!: number;
  @ApiProperty() is_default!: boolean;
  @ApiProperty({ type: AppearanceBody }) appearance!: AppearanceBody;
  @ApiProperty({ type: IdentityBody }) identity!: IdentityBody;
  @ApiProperty({ type: PersonalityBody }) personality!: PersonalityBody;
  @ApiProperty({ type: StyleBody }) style!: StyleBody;
  @ApiProperty({ type: SettingsBody }) settings!: SettingsBody;
  @ApiProperty() talking_head_enabled!: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'Europe/Lisbon' }) timezone!: string | null;
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
  @ApiProperty() page!: number;
  @ApiProperty() page_size!: number;
  @ApiProperty() total!: number;
}

class ReferenceImageBody {
  @ApiProperty({ example: 'ref_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: ['primary', 'reference'] }) type!: string;
  @ApiProperty() width!: number;
  @ApiProperty() height!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ReferenceImageUploadBody {
  @ApiProperty({ type: ReferenceImageBody }) reference_image!: ReferenceImageBody;
  @ApiProperty({ type: CharacterBody }) character!: CharacterBody;
  @ApiProperty({ description: 'The recompute_face_embedding job.' }) job!: Record<string, unknown>;
}
