import { jobTypes } from '../../../../platform/queue/index.js';
import { FACE_EMBEDDING_JOB } from '../../domain/character.js';

export const CHARACTERS_JOB_TYPES = jobTypes(FACE_EMBEDDING_JOB);

/** Why a character's appearance embedding is computed again: a new reference image, or removed ones. */
export type FaceEmbeddingPayload = { reference_image_id: string } | { reason: 'reference_images_removed' };

declare module '../../../../platform/queue/job-types.js' {
  interface JobPayloads {
    recompute_face_embedding: FaceEmbeddingPayload;
  }
}
