import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { LORA_STYLE_GRID } from '../../../generation/index.js';
import type { TrainingImage, TrainingRequest, TrainingState } from '../../application/ports/lora-trainer.js';
import { LocalLoraTrainer } from './local-trainer.js';

type Rgb = [number, number, number];

const RED: Rgb = [230, 20, 20];
const BLUE: Rgb = [20, 20, 230];

/** A PNG whose left half is one colour and right half another (PNG, so the colours stay exact). */
function halves(left: Rgb, right: Rgb, width = 48, height = 64): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let o = 0; o < raw.length; o += 3) raw.set((o / 3) % width < width / 2 ? left : right, o);
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

const solid = (rgb: Rgb) => halves(rgb, rgb);

const asImages = (buffers: Buffer[]): TrainingImage[] =>
  buffers.map((bytes, i) => ({ name: String(i + 1).padStart(3, '0'), bytes, contentType: 'image/png', caption: 'a photo of LUNA' }));

const request = (images: TrainingImage[], over: Partial<TrainingRequest> = {}): TrainingRequest => ({
  loraId: 'lora_01HZX6FQJ5N6E7T2M3A4B5C6D7',
  workspaceId: 'ws_a',
  characterId: 'char_a',
  baseModel: 'flux-dev',
  steps: 200,
  rank: 16,
  triggerWord: 'LUNA',
  images,
  ...over,
});

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Polls until the training ends (or a generous bound on ticks), recording every state seen on the way. */
async function untilDone(trainer: LocalLoraTrainer, id: string): Promise<{ final: TrainingState | null; seen: TrainingState[] }> {
  const seen: TrainingState[] = [];
  for (let i = 0; i < 200_000; i++) {
    const state = await trainer.status(id);
    if (!state || (state.status !== 'starting' && state.status !== 'processing')) return { final: state, seen };
    seen.push(state);
    await tick();
  }
  throw new Error(`training ${id} did not finish`);
}

/** Trains to the end and answers the style vector (failing the test if it did not succeed). */
async function train(trainer: LocalLoraTrainer, req: TrainingRequest): Promise<number[]> {
  const { providerTrainingId } = await trainer.start(req);
  const { final } = await untilDone(trainer, providerTrainingId);
  if (final?.status !== 'succeeded') throw new Error(`training ended ${JSON.stringify(final)}`);
  expect(final.weights).toMatchObject({ weightsUrl: null, version: null });
  return final.weights.style ?? [];
}

const cell = (style: number[], row: number, column: number) => style.slice((row * LORA_STYLE_GRID + column) * 3, (row * LORA_STYLE_GRID + column) * 3 + 3);

describe('LocalLoraTrainer', () => {
  const trainer = () => new LocalLoraTrainer({ samplesPerStep: 256, yieldEverySteps: 1 });
  // Fidelity needs more samples per step than the other checks: each cell's estimate is a mean of noisy samples.
  const fineTrainer = () => new LocalLoraTrainer({ samplesPerStep: 4096, yieldEverySteps: 20 });

  it('fits a grid of the images\u2019 colours per region: red on the left, blue on the right', async () => {
    const style = await train(fineTrainer(), request(asImages([await halves(RED, BLUE), await halves(RED, BLUE, 80, 40)])));
    expect(style).toHaveLength(LORA_STYLE_GRID * LORA_STYLE_GRID * 3);
    for (let row = 0; row < LORA_STYLE_GRID; row++) {
      // Away from the middle edge, each cell is within 0.05 of the colour its region shows.
      for (const column of [0, 1, 2]) cell(style, row, column).forEach((v, c) => expect(Math.abs(v - RED[c] / 255)).toBeLessThan(0.05));
      for (const column of [5, 6, 7]) cell(style, row, column).forEach((v, c) => expect(Math.abs(v - BLUE[c] / 255)).toBeLessThan(0.05));
    }
  });

  it('gives a red-dominant grid for all-red images', async () => {
    const style = await train(trainer(), request(asImages([await solid(RED), await solid([200, 40, 30])])));
    for (let i = 0; i < style.length; i += 3) {
      expect(style[i]).toBeGreaterThan(0.75);
      expect(Math.max(style[i + 1], style[i + 2])).toBeLessThan(0.15);
    }
  });

  it('gives the same vector for the same images and LoRA, and another for other images', async () => {
    const images = asImages([await halves(RED, BLUE), await solid([90, 160, 60])]);
    const a = await train(trainer(), request(images));
    const b = await train(trainer(), request(images));
    const other = await train(trainer(), request(asImages([await halves(BLUE, RED), await solid([90, 160, 60])])));
    expect(b).toEqual(a);
    expect(other).not.toEqual(a);
  });

  it('reports progress rising step by step to succeeded', async () => {
    const t = trainer();
    const { providerTrainingId } = await t.start(request(asImages([await solid(RED)]), { steps: 150 }));
    expect(providerTrainingId).toMatch(/^loc_/);
    const { final, seen } = await untilDone(t, providerTrainingId);
    expect(final?.status).toBe('succeeded');
    const progress = seen.flatMap((s) => (s.status === 'processing' ? [s.progress ?? -1] : []));
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
    expect(new Set(progress).size).toBeGreaterThan(50);
    expect(Math.max(...progress)).toBe(99);
  });

  it('does work in proportion to the steps: 2000 steps process twice the samples of 1000', async () => {
    const t = new LocalLoraTrainer({ samplesPerStep: 16, yieldEverySteps: 50 });
    const images = asImages([await solid(RED)]);
    const short = await t.start(request(images, { steps: 1000 }));
    const long = await t.start(request(images, { steps: 2000 }));
    await untilDone(t, short.providerTrainingId);
    await untilDone(t, long.providerTrainingId);
    expect(t.samplesProcessed(short.providerTrainingId)).toBe(16 * 1000);
    expect(t.samplesProcessed(long.providerTrainingId)).toBe(16 * 2000);
  });

  it('stops a cancelled training: canceled, and no more work done', async () => {
    const t = trainer();
    const { providerTrainingId: id } = await t.start(request(asImages([await solid(RED)]), { steps: 1_000_000 }));
    while ((t.samplesProcessed(id) ?? 0) === 0) await tick();
    await t.cancel(id);
    const done = t.samplesProcessed(id);
    for (let i = 0; i < 20; i++) await tick();
    expect(await t.status(id)).toEqual({ status: 'canceled' });
    expect(t.samplesProcessed(id)).toBe(done);
  });

  it('leaves a finished training as it is when cancelled after the end', async () => {
    const t = trainer();
    const { providerTrainingId: id } = await t.start(request(asImages([await solid(RED)]), { steps: 10 }));
    await untilDone(t, id);
    await t.cancel(id);
    expect((await t.status(id))?.status).toBe('succeeded');
  });

  it('answers null for a training it does not know (another process, or before a restart)', async () => {
    const t = trainer();
    expect(await t.status('loc_unknown')).toBeNull();
    await expect(t.cancel('loc_unknown')).resolves.toBeUndefined();
  });

  it('fails the training, naming the image, when one cannot be decoded', async () => {
    const t = trainer();
    const images = asImages([await solid(RED), Buffer.from('not an image at all')]);
    const { providerTrainingId } = await t.start(request(images));
    const { final } = await untilDone(t, providerTrainingId);
    expect(final).toEqual({ status: 'failed', error: expect.stringContaining('Training image 002') });
    expect(t.samplesProcessed(providerTrainingId)).toBe(0);
  });

  it('fails a training with no images', async () => {
    const t = trainer();
    const { providerTrainingId } = await t.start(request([]));
    expect((await untilDone(t, providerTrainingId)).final).toEqual({ status: 'failed', error: 'The training has no images.' });
  });

  it('reads greyscale, transparent and CMYK images as RGB', async () => {
    const grey = await sharp(Buffer.alloc(20 * 20, 128), { raw: { width: 20, height: 20, channels: 1 } }).toColourspace('b-w').png().toBuffer();
    const rgba = await sharp({ create: { width: 20, height: 20, channels: 4, background: { r: 20, g: 20, b: 230, alpha: 0.5 } } }).png().toBuffer();
    const cmyk = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#ff0000' } }).toColourspace('cmyk').jpeg().toBuffer();
    const channels = await Promise.all([grey, rgba, cmyk].map(async (b) => (await sharp(b).metadata()).channels));
    expect(channels).toEqual([1, 4, 4]);
    const style = await train(fineTrainer(), request(asImages([grey, rgba, cmyk])));
    // A third of the samples each: grey 128, the blue without its alpha, and the CMYK red in sRGB (about 232, 0, 0).
    const expected = [(128 + 20 + 232) / 3 / 255, (128 + 20) / 3 / 255, (128 + 230) / 3 / 255];
    for (let i = 0; i < style.length; i++) expect(Math.abs(style[i] - expected[i % 3])).toBeLessThan(0.04);
  });
});
