import { createHash } from 'node:crypto';
import { LORA_STYLE_GRID, styleAxis, type StyleAxis } from '../../../generation/index.js';

/**
 * Each training image is decoded to this many pixels a side: 4 per grid cell along each axis, so
 * every cell is fitted to pixels at several positions (its neighbours' bilinear shares included).
 */
export const TRAINING_SIDE = 32;

const CELLS = LORA_STYLE_GRID * LORA_STYLE_GRID;
const PIXELS_PER_IMAGE = TRAINING_SIDE * TRAINING_SIDE;

/** Step size at the first step; it decays to a tenth by the last, so late minibatches only refine. */
const LEARNING_RATE = 0.8;
const DECAY = 9;

/** The pixels the style is fitted to: every image's TRAINING_SIDE² RGB pixels, 0..1. */
export interface TrainingSet {
  pixels: Float32Array;
  imageCount: number;
}

/** A fit in progress: the style grid, the minibatch's gradient, the running average, and the seeded sampler. */
export interface StyleFit {
  readonly set: TrainingSet;
  readonly style: Float64Array;
  /** Sum of the grids after each step of the second half, and how many: the answer is their mean. */
  readonly tailSum: Float64Array;
  tailSteps: number;
  readonly gradient: Float64Array;
  readonly cellWeight: Float64Array;
  readonly axis: StyleAxis;
  readonly random: () => number;
}

/** Builds the set from raw RGB buffers of TRAINING_SIDE² pixels each (as the trainer decodes them). */
export function trainingSet(images: readonly Buffer[]): TrainingSet {
  const pixels = new Float32Array(images.length * PIXELS_PER_IMAGE * 3);
  images.forEach((raw, i) => {
    if (raw.length !== PIXELS_PER_IMAGE * 3) throw new Error(`A training image must be ${TRAINING_SIDE}×${TRAINING_SIDE} RGB, got ${raw.length} bytes.`);
    for (let j = 0; j < raw.length; j++) pixels[i * raw.length + j] = raw[j] / 255;
  });
  return { pixels, imageCount: images.length };
}

/** A fit from neutral grey, its sampler seeded by `seed` (the LoRA id): same images, same seed, same vector. */
export function startFit(set: TrainingSet, seed: string): StyleFit {
  return {
    set,
    style: new Float64Array(CELLS * 3).fill(0.5),
    tailSum: new Float64Array(CELLS * 3),
    tailSteps: 0,
    gradient: new Float64Array(CELLS * 3),
    cellWeight: new Float64Array(CELLS),
    axis: styleAxis(TRAINING_SIDE),
    random: mulberry32(createHash('sha256').update(seed).digest().readUInt32BE(0)),
  };
}

/**
 * One minibatch step of stochastic gradient descent on the squared error between the bilinearly
 * up-sampled grid and `samples` pixels drawn at random (image and position). Each cell moves by
 * its gradient divided by its share of the batch, so sparsely hit cells are not left behind.
 * Over the second half the grids are averaged (tail averaging): small minibatches of very
 * different images leave each step's grid noisy, and the mean of many cancels most of the noise.
 * Answers the samples it processed: the work done, for callers that account for it.
 */
export function sgdStep(fit: StyleFit, samples: number, step: number, steps: number): number {
  fit.gradient.fill(0);
  fit.cellWeight.fill(0);
  let processed = 0;
  for (; processed < samples; processed++) accumulate(fit);
  const rate = LEARNING_RATE / (1 + (DECAY * step) / steps);
  const { style, gradient, cellWeight } = fit;
  for (let cell = 0; cell < CELLS; cell++) {
    if (cellWeight[cell] === 0) continue;
    const scaled = rate / cellWeight[cell];
    for (let c = cell * 3; c < cell * 3 + 3; c++) style[c] = clamp01(style[c] - scaled * gradient[c]);
  }
  if (2 * step >= steps - 1) {
    for (let i = 0; i < style.length; i++) fit.tailSum[i] += style[i];
    fit.tailSteps++;
  }
  return processed;
}

/** The fitted vector in the layout the local image generator applies, rounded to keep the stored JSON short. */
export function styleVector(fit: StyleFit): number[] {
  const grid = fit.tailSteps > 0 ? fit.tailSum.map((sum) => sum / fit.tailSteps) : fit.style;
  return Array.from(grid, (v) => Math.round(clamp01(v) * 10_000) / 10_000);
}

/** One pixel sample's contribution: the prediction error spread over its four cells by their bilinear weights. */
function accumulate(fit: StyleFit): void {
  const { set, style, gradient, cellWeight, axis } = fit;
  const index = (fit.random() * set.imageCount * PIXELS_PER_IMAGE) | 0;
  const at = index % PIXELS_PER_IMAGE;
  const x = at % TRAINING_SIDE;
  const y = (at - x) / TRAINING_SIDE;
  const fx = axis.upperWeight[x];
  const fy = axis.upperWeight[y];
  const top = axis.lower[y] * LORA_STYLE_GRID;
  const bottom = axis.upper[y] * LORA_STYLE_GRID;
  const c00 = top + axis.lower[x];
  const c10 = top + axis.upper[x];
  const c01 = bottom + axis.lower[x];
  const c11 = bottom + axis.upper[x];
  const w00 = (1 - fx) * (1 - fy);
  const w10 = fx * (1 - fy);
  const w01 = (1 - fx) * fy;
  const w11 = fx * fy;
  cellWeight[c00] += w00;
  cellWeight[c10] += w10;
  cellWeight[c01] += w01;
  cellWeight[c11] += w11;
  for (let c = 0; c < 3; c++) {
    const predicted = w00 * style[c00 * 3 + c] + w10 * style[c10 * 3 + c] + w01 * style[c01 * 3 + c] + w11 * style[c11 * 3 + c];
    const error = predicted - set.pixels[index * 3 + c];
    gradient[c00 * 3 + c] += w00 * error;
    gradient[c10 * 3 + c] += w10 * error;
    gradient[c01 * 3 + c] += w01 * error;
    gradient[c11 * 3 + c] += w11 * error;
  }
}

// Hot loops read a module binding, not the global `Math`: global look-ups are slow inside vm contexts (jest).
const { imul } = Math;

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/** mulberry32: small and fast; the lora context keeps its own, since generation's is internal to it. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
