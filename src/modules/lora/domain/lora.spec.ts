import { describe, expect, it } from '@jest/globals';
import {
  addImagesRefusal,
  canMove,
  consistencyTier,
  defaultTriggerWord,
  isTraining,
  LORA_STATUSES,
  removeImageRefusal,
  trainingCaption,
  trainRefusal,
  type LoraStatus,
} from './lora.js';

describe('LoRA status table', () => {
  it('allows exactly the moves of contract §10', () => {
    const allowed = LORA_STATUSES.flatMap((from) => LORA_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(['failed->queued', 'none->queued', 'queued->failed', 'queued->training', 'ready->queued', 'training->failed', 'training->ready'].sort());
  });

  it('shows the lora tier only while ready', () => {
    const tiers = Object.fromEntries(LORA_STATUSES.map((s) => [s, consistencyTier(s)]));
    expect(tiers).toEqual({ none: 'ip_adapter', queued: 'ip_adapter', training: 'ip_adapter', ready: 'lora', failed: 'ip_adapter' });
  });

  it('counts queued and training as under way', () => {
    expect(LORA_STATUSES.filter(isTraining)).toEqual(['queued', 'training']);
  });
});

describe('trainRefusal (after plan and base model)', () => {
  it.each<[LoraStatus, number, string | null]>([
    ['none', 10, null],
    ['ready', 30, null],
    ['failed', 12, null],
    ['queued', 15, 'training_in_progress'],
    ['training', 5, 'training_in_progress'],
    ['none', 9, 'insufficient_training_images'],
    ['failed', 31, 'insufficient_training_images'],
    ['none', 0, 'insufficient_training_images'],
  ])('%s with %i images → %s', (status, imageCount, code) => {
    expect(trainRefusal({ status, imageCount })?.code ?? null).toBe(code);
  });

  it('says how many images the character has', () => {
    expect(trainRefusal({ status: 'none', imageCount: 4 })?.details).toEqual({ required_min: 10, required_max: 30, image_count: 4 });
  });
});

describe('image changes', () => {
  it('refuses additions while training, then past 30 in all', () => {
    expect(addImagesRefusal('queued', 0, 1)?.code).toBe('training_in_progress');
    expect(addImagesRefusal('training', 29, 5)?.code).toBe('training_in_progress');
    expect(addImagesRefusal('none', 28, 3)?.code).toBe('training_image_limit');
    expect(addImagesRefusal('ready', 28, 2)).toBeNull();
    expect(addImagesRefusal('failed', 0, 30)).toBeNull();
  });

  it('refuses removals only while training', () => {
    expect(LORA_STATUSES.filter((s) => removeImageRefusal(s) !== null)).toEqual(['queued', 'training']);
  });
});

describe('trigger word and captions', () => {
  it('derives a token from the name and the id, letters only in capitals', () => {
    expect(defaultTriggerWord('Zara K.', 'char_01HZX6FQJ5N6E7T2M3A4B5K7Q2')).toBe('ZARAK_K7Q2');
    expect(defaultTriggerWord('Élodie-Marie Fontaine', 'char_01HZX6FQJ5N6E7T2M3A4B5ABCD')).toBe('ELODIEMARIEF_ABCD');
    expect(defaultTriggerWord('李', 'char_01HZX6FQJ5N6E7T2M3A4B5WXYZ')).toBe('PERSONA_WXYZ');
  });

  it('writes the trigger word into every caption', () => {
    expect(trainingCaption('ZARA_K7Q2', 'soft film look')).toBe('a photo of ZARA_K7Q2, soft film look');
    expect(trainingCaption('ZARA_K7Q2', undefined)).toBe('a photo of ZARA_K7Q2');
  });
});
