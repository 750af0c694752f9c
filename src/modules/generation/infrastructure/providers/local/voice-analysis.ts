/**
 * What the offline synthesiser can copy from a voice: how high it speaks (fundamental frequency)
 * and how fast (syllables a second). Plain signal processing on mono float samples, so the same
 * samples always give the same figures.
 */

const MIN_F0_HZ = 60;
const MAX_F0_HZ = 450;
/** A frame is voiced when it correlates this well with itself one period later. */
const VOICING_THRESHOLD = 0.7;

/**
 * The fundamental frequency of every voiced 40 ms frame (20 ms apart), by normalised
 * autocorrelation. Of the lags that correlate nearly as well as the best, the shortest wins: a
 * period repeats at twice the period too, and that would halve the pitch.
 */
export function pitchFrames(samples: Float32Array, sampleRate: number): number[] {
  const frame = Math.round(sampleRate * 0.04);
  const hop = Math.round(sampleRate * 0.02);
  const minLag = Math.floor(sampleRate / MAX_F0_HZ);
  const maxLag = Math.ceil(sampleRate / MIN_F0_HZ);
  const loud = loudnessFloor(samples, frame, hop);
  const pitches: number[] = [];
  for (let start = 0; start + frame + maxLag + 1 < samples.length; start += hop) {
    if (frameRms(samples, start, frame) < loud) continue;
    const lag = periodOf(samples, start, frame, minLag, maxLag);
    if (lag !== null) pitches.push(sampleRate / lag);
  }
  return pitches;
}

function periodOf(x: Float32Array, start: number, frame: number, minLag: number, maxLag: number): number | null {
  const r = new Float64Array(maxLag + 2);
  let energy = 0;
  for (let i = 0; i < frame; i++) energy += x[start + i] * x[start + i];
  let best = 0;
  for (let lag = minLag - 1; lag <= maxLag + 1; lag++) {
    let cross = 0;
    let shifted = 0;
    for (let i = 0; i < frame; i++) {
      cross += x[start + i] * x[start + i + lag];
      shifted += x[start + i + lag] * x[start + i + lag];
    }
    r[lag] = cross / Math.sqrt(energy * shifted + 1e-12);
    if (lag >= minLag && lag <= maxLag && r[lag] > best) best = r[lag];
  }
  if (best < VOICING_THRESHOLD) return null;
  for (let lag = minLag; lag <= maxLag; lag++) {
    if (r[lag] >= 0.9 * best && r[lag] >= r[lag - 1] && r[lag] >= r[lag + 1]) return refine(r, lag);
  }
  return null;
}

/** The peak between whole lags (a parabola through three points), for a pitch finer than one sample. */
function refine(r: Float64Array, lag: number): number {
  const [a, b, c] = [r[lag - 1], r[lag], r[lag + 1]];
  const denominator = a - 2 * b + c;
  return denominator === 0 ? lag : lag + (0.5 * (a - c)) / denominator;
}

function frameRms(x: Float32Array, start: number, frame: number): number {
  let sum = 0;
  for (let i = 0; i < frame; i++) sum += x[start + i] * x[start + i];
  return Math.sqrt(sum / frame);
}

/** Frames quieter than a tenth of the loudest are pauses and breath: their pitch is noise. */
function loudnessFloor(x: Float32Array, frame: number, hop: number): number {
  let loudest = 0;
  for (let start = 0; start + frame <= x.length; start += hop) loudest = Math.max(loudest, frameRms(x, start, frame));
  return Math.max(loudest * 0.1, 1e-4);
}

export interface SyllableCount {
  /** Loudness peaks, one a syllable nucleus. */
  syllables: number;
  /** Seconds within 30 dB of the loudest moment: speech, without its pauses. */
  activeSeconds: number;
}

/**
 * Syllables from the loudness envelope (20 ms frames, 10 ms apart, smoothed over 50 ms): a peak
 * counts when the envelope rose 4 dB to it and falls 4 dB after it, as vowels stand out from
 * the consonants around them.
 */
export function syllableCount(samples: Float32Array, sampleRate: number): SyllableCount {
  const envelope = smooth(loudnessDb(samples, sampleRate), 2);
  if (envelope.length === 0) return { syllables: 0, activeSeconds: 0 };
  const floor = Math.max(...envelope) - 30;
  const activeSeconds = envelope.filter((db) => db > floor).length * 0.01;
  let syllables = 0;
  let rising = true;
  let extreme = envelope[0];
  for (const db of envelope) {
    if (rising && db > extreme) extreme = db;
    else if (rising && extreme - db >= 4) {
      if (extreme > floor) syllables++;
      [rising, extreme] = [false, db];
    } else if (!rising && db < extreme) extreme = db;
    else if (!rising && db - extreme >= 4) [rising, extreme] = [true, db];
  }
  return { syllables, activeSeconds };
}

function loudnessDb(x: Float32Array, sampleRate: number): number[] {
  const frame = Math.round(sampleRate * 0.02);
  const hop = Math.round(sampleRate * 0.01);
  const db: number[] = [];
  for (let start = 0; start + frame <= x.length; start += hop) db.push(20 * Math.log10(frameRms(x, start, frame) + 1e-6));
  return db;
}

function smooth(values: number[], radius: number): number[] {
  return values.map((_, i) => {
    const window = values.slice(Math.max(0, i - radius), i + radius + 1);
    return window.reduce((a, b) => a + b, 0) / window.length;
  });
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
