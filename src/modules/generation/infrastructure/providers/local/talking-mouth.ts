/**
 * The offline talking head's mouth: how far it opens in each video frame (from the speech's
 * loudness in that frame's slice of audio) and how it is drawn over the face.
 */

export interface MouthGeometry {
  centerX: number;
  centerY: number;
  halfWidth: number;
  /** Half-height of the dark opening at full loudness. */
  maxOpening: number;
  /** Thickness of the lips around the opening (all that shows when closed). */
  lip: number;
}

/**
 * Where the mouth goes without face detection: the face is taken as a square of 60 % of the short
 * side, centred horizontally and a little above the middle (portraits put the head high), and the
 * mouth sits halfway down its lower half.
 */
export function mouthGeometry(width: number, height: number): MouthGeometry {
  const face = 0.6 * Math.min(width, height);
  const faceCenterY = 0.45 * height;
  return {
    centerX: width / 2,
    centerY: Math.round(faceCenterY + 0.25 * face),
    halfWidth: Math.max(2, Math.round(0.11 * face)),
    maxOpening: Math.max(2, Math.round(0.055 * face)),
    lip: Math.max(1, Math.round(0.02 * face)),
  };
}

/** The rectangle a mouth can cover, fully open, for checks on rendered frames. */
export function mouthBox(m: MouthGeometry): { left: number; top: number; width: number; height: number } {
  const halfHeight = m.maxOpening + m.lip;
  return { left: Math.round(m.centerX - m.halfWidth), top: m.centerY - halfHeight, width: 2 * m.halfWidth, height: 2 * halfHeight };
}

/** Below this RMS (about -40 dBFS) a frame counts as silence: breath and hiss keep the mouth shut. */
const SILENCE_RMS = 0.01;
/** The loudest frame opens fully, but a quiet recording is not boosted past this reference (-26 dBFS). */
const MIN_PEAK_RMS = 0.05;
/** Openness steps: frames of equal loudness render identically. */
const STEPS = 64;

/**
 * Openness (0-1) per video frame: frame i is the RMS of samples [i·n, (i+1)·n) of the mono PCM,
 * relative to the loudest frame. No smoothing across frames: each frame shows only its own audio.
 */
export function mouthLevels(pcm: Int16Array, samplesPerFrame: number, frames: number): Float32Array {
  const rms = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    const from = Math.round(f * samplesPerFrame);
    const to = Math.min(pcm.length, Math.round((f + 1) * samplesPerFrame));
    let sum = 0;
    for (let i = from; i < to; i++) sum += pcm[i] * pcm[i];
    // A short last window is averaged over the full frame: the padding after it is silence.
    rms[f] = Math.sqrt(sum / samplesPerFrame) / 32768;
  }
  const peak = rms.reduce((max, r) => Math.max(max, r), MIN_PEAK_RMS);
  return rms.map((r) => (r < SILENCE_RMS ? 0 : Math.round(Math.min(1, Math.sqrt(r / peak)) * STEPS) / STEPS));
}

// Module-scope bindings: inside a vm context (jest) every global lookup in the pixel loop is slow.
const { abs, ceil, floor, max, min, round, sqrt } = Math;

const LIPS: Rgb = [150, 68, 78];
const OPENING: Rgb = [40, 12, 18];

type Rgb = readonly [number, number, number];

/** Draws the mouth at the given openness onto an RGB frame, in place. */
export function drawMouth(frame: Buffer, width: number, m: MouthGeometry, openness: number): void {
  const opening = openness * m.maxOpening;
  fillEllipse(frame, width, m.centerX, m.centerY, m.halfWidth, opening + m.lip, LIPS, 0.9);
  if (opening >= 0.5) fillEllipse(frame, width, m.centerX, m.centerY, m.halfWidth * 0.82, opening, OPENING, 1);
}

/** A filled ellipse, blended at `alpha`, with horizontally anti-aliased edges. */
function fillEllipse(frame: Buffer, width: number, cx: number, cy: number, a: number, b: number, color: Rgb, alpha: number): void {
  const height = frame.length / (width * 3);
  const top = max(0, ceil(cy - b));
  const bottom = min(height - 1, floor(cy + b));
  for (let y = top; y <= bottom; y++) {
    const t = (y - cy) / b;
    const half = a * sqrt(max(0, 1 - t * t));
    const left = max(0, floor(cx - half - 1));
    const right = min(width - 1, ceil(cx + half + 1));
    for (let x = left; x <= right; x++) {
      const coverage = min(1, max(0, half - abs(x + 0.5 - cx) + 0.5)) * alpha;
      if (coverage <= 0) continue;
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) frame[at + c] = round(frame[at + c] * (1 - coverage) + color[c] * coverage);
    }
  }
}
