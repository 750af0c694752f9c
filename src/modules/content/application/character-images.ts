import type { Tx } from '../../../platform/database/index.js';

/** Bytes of a character's primary reference image, for image-to-image and video. */
export interface PrimaryImageBytes {
  url: string;
  bytes: Buffer;
  contentType: string;
}

/**
 * Finds a character's uploaded primary reference image in our storage. A port so that the way
 * to find it (today from the character's reference URLs) can change without touching the jobs.
 */
export abstract class CharacterImages {
  abstract primaryImage(workspaceId: string, characterId: string, tx?: Tx): Promise<PrimaryImageBytes | null>;
}
