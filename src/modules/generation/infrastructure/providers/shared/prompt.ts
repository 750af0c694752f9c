import type { ImageRequest } from '../../../application/ports/index.js';

/** The item's prompt in the character's look: its aesthetic and style presets, each said once. */
export function promptWithLook(req: ImageRequest): string {
  const look = [req.character.aesthetic, ...req.character.stylePresets].filter((s): s is string => !!s && !req.prompt.toLowerCase().includes(s.toLowerCase()));
  return look.length ? `${req.prompt}, ${look.join(', ')}` : req.prompt;
}
