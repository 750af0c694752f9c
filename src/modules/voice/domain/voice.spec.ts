import { describe, expect, it } from '@jest/globals';
import { audioKey, cloneRefusal, DEFAULT_SETTINGS, sampleKey, speechCredits, VOICE_STATUSES } from './voice.js';

describe('voice rules (contract §11)', () => {
  it('refuses a second clone only while one is running', () => {
    expect(VOICE_STATUSES.filter((s) => cloneRefusal(s) !== null)).toEqual(['cloning']);
  });

  it.each([[1, 1], [100, 1], [101, 2], [5000, 50]])('charges %i characters of speech %i credits (1 per started 100)', (chars, credits) => {
    expect(speechCredits(chars, 1)).toBe(credits);
  });

  it('has the contract’s default settings', () => {
    expect(DEFAULT_SETTINGS).toEqual({ voiceId: null, stability: 0.5, similarityBoost: 0.75, style: 0, useSpeakerBoost: true, modelId: null });
  });

  it('keeps audio and samples under keys made from ids', () => {
    expect(audioKey('char_1', 'aud_2', 'mp3')).toBe('audio/char_1/aud_2.mp3');
    expect(sampleKey('char_1', 'voice_3', 0, 'wav')).toBe('voice-samples/char_1/voice_3-0.wav');
  });
});
