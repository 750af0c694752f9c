import { afterAll, describe, expect, it, jest } from '@jest/globals';
import type { Type } from '@nestjs/common';
import fc from 'fast-check';
import { AppError } from '../../src/core/index.js';
import { mp3DurationSeconds, sniffAudioType, wavDurationSeconds } from '../../src/platform/media/index.js';
import { strictValidationPipe } from '../../src/platform/http/index.js';
import type { SpeechFormat } from '../../src/modules/generation/index.js';
import { EspeakEngine } from '../../src/modules/generation/infrastructure/providers/local/espeak-engine.js';
import { LocalSpeechGenerator } from '../../src/modules/generation/infrastructure/providers/local/local-speech-generator.js';
import { MAX_PREVIEW_CHARS, MAX_SPEECH_CHARS } from '../../src/modules/voice/domain/voice.js';
import { GenerateSpeechDto, PreviewSpeechDto } from '../../src/modules/voice/api/dto/voice.dto.js';

/**
 * A property test across two contexts (voice's validation, generation's offline synthesiser), so it
 * lives outside both. Whatever text a caller sends to `POST .../voice/preview` or `.../voice/generate`, the route's
 * validation either refuses it (400 `validation_failed`), or the offline synthesiser speaks it
 * into playable audio: no accepted text may end in a provider failure (a 502, a failed job).
 * eSpeak takes a good part of a second per text, so the runs are few and the classes chosen.
 */
jest.setTimeout(240_000);

const engine = new EspeakEngine();
const generator = new LocalSpeechGenerator(engine);
afterAll(() => engine.close());

const SETTINGS = { stability: 0.5, similarityBoost: 0.75, style: 0, useSpeakerBoost: true, modelId: 'eleven_multilingual_v2' };
const pipe = strictValidationPipe();

const range = (from: number, to: number) => fc.integer({ min: from, max: to }).map((c) => String.fromCodePoint(c));
const chars = (...cs: string[]) => fc.constantFrom(...cs);
const text = (unit: fc.Arbitrary<string>, maxLength: number) => fc.string({ unit, minLength: 1, maxLength });

/** The kinds of text that made, or could make, near-silence or odd bytes for the synthesiser. */
function unicodeClasses(maxLength: number): fc.Arbitrary<string> {
  const punctuation = chars(...'.,;:!?…-—–"\'()[]{}¡¿«»、。・‽⁂§¶*&#@/\\|~^`');
  const whitespaceLike = chars(' ', '\u00a0', '\u2002', '\u2009', '\u200a', '\u3000', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u2028', '\u2029', '\u180e');
  const privateUse = fc.oneof(range(0xe000, 0xf8ff), range(0xf0000, 0xffffd), range(0x100000, 0x10fffd));
  const emoji = chars('😀', '👍🏽', '👩‍👩‍👧', '🇫🇷', '❤️', '🫠', '🧑🏿‍🚀', '#️⃣', '🏳️‍🌈');
  const combining = fc.oneof(range(0x0300, 0x036f), range(0x20d0, 0x20f0), range(0xfe20, 0xfe2f));
  const rtl = fc.oneof(range(0x05d0, 0x05ea), range(0x0627, 0x064a), chars('\u200f', '\u202b', '\u202e', '\u2067', '\u061c'));
  const cjk = fc.oneof(range(0x4e00, 0x9fff), range(0x3041, 0x3096), range(0xac00, 0xd7a3));
  // Line breaks and tabs pass validation in body text; every other control character is refused.
  const controls = fc.oneof(chars('\t', '\n', '\r'), range(0x00, 0x1f), range(0x7f, 0x9f));
  const oddities = chars('\ufffd', '\ufffe', '\uffff', '\ud800', '\udfff', '\u{1d11e}', '\u{e0001}', '\u{e0041}');
  const anything = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
  return fc.oneof(
    text(punctuation, maxLength),
    text(whitespaceLike, 12),
    fc.tuple(text(whitespaceLike, 6), text(punctuation, 6)).map(([a, b]) => a + b + a),
    text(privateUse, maxLength),
    text(emoji, Math.min(maxLength, 60)),
    text(combining, maxLength),
    fc.tuple(chars('a', 'e', 'o', ''), text(combining, 8)).map(([base, marks]) => base + marks),
    text(rtl, maxLength),
    text(cjk, maxLength),
    fc.tuple(text(controls, 3), text(punctuation, 4)).map(([c, p]) => p + c + p),
    text(oddities, 10),
    anything,
    text(fc.oneof(punctuation, privateUse, emoji, combining, rtl, cjk, oddities), maxLength),
    fc.constantFrom('.', '\ue000', '…', '\u200b', '\uffff', '.'.repeat(maxLength), '\ue000'.repeat(maxLength)),
  );
}

/** What the route's validation makes of the body: the text it passes on, or the 400 it answers. */
async function validated(dto: Type, body: Record<string, unknown>): Promise<{ text: string } | { refused: unknown }> {
  try {
    return (await pipe.transform(body, { type: 'body', metatype: dto, data: '' })) as { text: string };
  } catch (err) {
    return { refused: err };
  }
}

/** Refused by validation as a 400, or spoken into audio of the asked format whose length we can read. */
async function refusedOrSpoken(dto: Type, raw: string, format: SpeechFormat): Promise<void> {
  const result = await validated(dto, { text: raw });
  if ('refused' in result) {
    expect(result.refused).toBeInstanceOf(AppError);
    expect(result.refused).toMatchObject({ code: 'validation_failed' });
    return;
  }
  const speech = await generator.speak({ text: result.text, voiceId: generator.defaultVoiceId(), settings: SETTINGS, format });
  expect(sniffAudioType(speech.bytes)?.ext).toBe(format);
  const measured = format === 'mp3' ? mp3DurationSeconds(speech.bytes) : wavDurationSeconds(speech.bytes);
  expect(measured).not.toBeNull();
  expect(Number.isFinite(speech.durationSeconds) && speech.durationSeconds >= 0).toBe(true);
}

describe('speech text: refused by validation, or spoken (property)', () => {
  it('the preview (≤ 200 characters, MP3) over Unicode classes', async () => {
    await fc.assert(
      fc.asyncProperty(unicodeClasses(MAX_PREVIEW_CHARS), (raw) => refusedOrSpoken(PreviewSpeechDto, raw, 'mp3')),
      { numRuns: 36, seed: 24_009, examples: [['.'], ['\ue000'], ['\ue000\ue001'], ['…'], ['\u200b']] },
    );
  });

  it('a generation (≤ 5000 characters, MP3 or WAV) at its longest and shortest', async () => {
    const long = fc.oneof(unicodeClasses(MAX_SPEECH_CHARS), fc.string({ unit: 'binary', minLength: MAX_SPEECH_CHARS - 50, maxLength: MAX_SPEECH_CHARS }));
    await fc.assert(
      fc.asyncProperty(long, fc.constantFrom<SpeechFormat>('mp3', 'wav'), (raw, format) => refusedOrSpoken(GenerateSpeechDto, raw, format)),
      { numRuns: 8, seed: 24_010, examples: [['.'.repeat(MAX_SPEECH_CHARS), 'mp3'], ['\ue000'.repeat(MAX_SPEECH_CHARS), 'mp3']] },
    );
  });

  it('refuses at validation what is empty once trimmed, too long, or holds a control character other than a line break or tab', async () => {
    for (const raw of ['', ' \u00a0\u3000 ', '\n\t', 'a'.repeat(MAX_PREVIEW_CHARS + 1), 'hi\u0000', 'hi\u001b[31m', 'hi\u0085']) {
      const result = await validated(PreviewSpeechDto, { text: raw });
      expect(result).toEqual({ refused: expect.objectContaining({ code: 'validation_failed' }) });
    }
  });
});
