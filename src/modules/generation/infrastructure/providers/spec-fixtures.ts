import sharp from 'sharp';
import type { AppError } from '../../../../core/index.js';
import type { CharacterBrief } from '../../application/ports/index.js';

/** A character brief for adapter specs. */
export const LUNA: CharacterBrief = {
  id: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7',
  name: 'Luna',
  niche: 'urban gardening',
  tone: 'playful',
  aesthetic: 'sunlit film',
  ageRange: '25-34',
  location: 'Lisbon',
  occupation: 'gardener',
  stylePresets: ['soft focus'],
  primaryImageUrl: null,
};

/** A small real JPEG, as a stored reference image would be. */
export function sampleJpeg(width = 96, height = 128): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 40 } } }).jpeg().toBuffer();
}

/** Retry waits recorded instead of waited. */
export function recordedSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

/** The error a promise rejects with (adapters reject with AppErrors); fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<AppError> {
  const outcome = await p.then(
    () => ({ resolved: true as const }),
    (err: unknown) => ({ resolved: false as const, err }),
  );
  if (outcome.resolved) throw new Error('expected the promise to reject');
  return outcome.err as AppError;
}
