import { ApiProperty } from '@nestjs/swagger';
import { JobDoc, JobFailureDoc } from '../../../../platform/http/index.js';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import type { VoiceView, WorkspaceVoice } from '../../application/voice.service.js';
import { CLIP_EXCERPT_CHARS, textExcerpt, type AudioClip } from '../../domain/audio-clip.js';
import { VOICE_STATUSES } from '../../domain/voice.js';

export function toLibraryVoiceBody(v: WorkspaceVoice): Record<string, unknown> {
  return { voice_id: v.voiceId, name: v.name, category: v.category, preview_url: v.previewUrl, labels: v.labels, character_id: v.characterId };
}

export function toSettingsBody(view: VoiceView): Record<string, unknown> {
  const s = view.settings;
  return { voice_id: s.voiceId, stability: s.stability, similarity_boost: s.similarityBoost, style: s.style, use_speaker_boost: s.useSpeakerBoost, model_id: s.modelId };
}

/** The character's voice (contract §11): `status` is its clone's, `none` while it speaks with a library voice. */
export function toVoiceBody(view: VoiceView): Record<string, unknown> {
  const r = view.record;
  return {
    voice_id: view.voiceId,
    name: view.name,
    category: view.category,
    status: r?.status ?? 'none',
    settings: toSettingsBody(view),
    sample_count: r?.sampleCount ?? 0,
    error: r?.error ? { code: r.error.code, message: r.error.message } : null,
    created_at: r ? r.createdAt.toISOString() : null,
  };
}

export function toAudioBody(a: AudioClip, urls: MediaUrls): Record<string, unknown> {
  return {
    id: a.id,
    status: a.status,
    url: urls.signOrNull(a.storageKey),
    format: a.format,
    duration_seconds: a.durationSeconds,
    characters: a.characters,
    credits_charged: a.creditsCharged,
    job_id: a.jobId,
    created_at: a.createdAt.toISOString(),
  };
}

/** A clip in the character's list: the clip as read alone, with what it is and how its text starts. */
export function toClipListBody(a: AudioClip, urls: MediaUrls): Record<string, unknown> {
  return { ...toAudioBody(a, urls), kind: a.kind, text_excerpt: textExcerpt(a.text) };
}

// Documentation shapes for the OpenAPI document.

class LibraryVoiceDoc {
  @ApiProperty({ example: '21m00Tcm4TlvDq8ikWAM' }) voice_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['premade', 'cloned'] }) category!: string;
  @ApiProperty({ type: String, nullable: true }) preview_url!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ type: String, nullable: true, description: 'The character a clone belongs to.' }) character_id!: string | null;
}

export class VoicesDoc {
  @ApiProperty({ type: [LibraryVoiceDoc] }) voices!: LibraryVoiceDoc[];
}

export class VoiceSettingsDoc {
  @ApiProperty() voice_id!: string;
  @ApiProperty({ minimum: 0, maximum: 1 }) stability!: number;
  @ApiProperty({ minimum: 0, maximum: 1 }) similarity_boost!: number;
  @ApiProperty({ minimum: 0, maximum: 1 }) style!: number;
  @ApiProperty() use_speaker_boost!: boolean;
  @ApiProperty() model_id!: string;
}

export class VoiceSettingsEnvelope {
  @ApiProperty({ type: VoiceSettingsDoc }) settings!: VoiceSettingsDoc;
}

class VoiceDoc {
  @ApiProperty() voice_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ enum: ['premade', 'cloned'] }) category!: string;
  @ApiProperty({ enum: VOICE_STATUSES }) status!: string;
  @ApiProperty({ type: VoiceSettingsDoc }) settings!: VoiceSettingsDoc;
  @ApiProperty({ type: 'integer' }) sample_count!: number;
  @ApiProperty({ type: JobFailureDoc, nullable: true }) error!: JobFailureDoc | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at!: string | null;
}

export class VoiceEnvelope {
  @ApiProperty({ type: VoiceDoc }) voice!: VoiceDoc;
}

export class VoiceCloneEnvelope {
  @ApiProperty({ type: VoiceDoc }) voice!: VoiceDoc;
  @ApiProperty({ type: JobDoc, description: 'The clone_voice job record.' }) job!: JobDoc;
}

class AudioDoc {
  @ApiProperty({ example: 'aud_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ enum: ['queued', 'completed', 'failed'] }) status!: string;
  @ApiProperty({ type: String, nullable: true, description: 'A signed URL once the audio exists.' }) url!: string | null;
  @ApiProperty({ enum: ['mp3', 'wav'] }) format!: string;
  @ApiProperty({ type: Number, nullable: true }) duration_seconds!: number | null;
  @ApiProperty({ type: 'integer' }) characters!: number;
  @ApiProperty({ type: 'integer' }) credits_charged!: number;
  @ApiProperty({ type: String, nullable: true }) job_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class AudioEnvelope {
  @ApiProperty({ type: AudioDoc }) audio!: AudioDoc;
}

export class AudioJobEnvelope {
  @ApiProperty({ type: AudioDoc }) audio!: AudioDoc;
  @ApiProperty({ type: JobDoc, description: 'The generate_speech job record.' }) job!: JobDoc;
}

class ClipDoc extends AudioDoc {
  @ApiProperty({ enum: ['preview', 'speech'], description: 'A synchronous preview or a generate_speech job.' }) kind!: string;
  @ApiProperty({ description: `The clip's text, at most ${CLIP_EXCERPT_CHARS} characters, ending in … when cut.` }) text_excerpt!: string;
}

export class ClipListDoc {
  @ApiProperty({ type: [ClipDoc] }) clips!: ClipDoc[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}
