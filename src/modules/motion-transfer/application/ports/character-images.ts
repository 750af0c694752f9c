import type { Tx } from '../../../../platform/database/index.js';

/** Where a character's primary reference image lives in our storage. */
export interface PrimaryImage {
  storageKey: string;
  contentType: string;
  url: string;
}

/**
 * The character's uploaded primary reference image: the look a transfer puts on the motion.
 * Pass `tx` whenever you hold one (PGlite runs one transaction at a time).
 */
export abstract class CharacterImages {
  abstract primaryImage(workspaceId: string, characterId: string, tx?: Tx): Promise<PrimaryImage | null>;
}
