import { describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../../core/index.js';
import { runFfmpeg, withTempDir } from '../../../../../platform/media/index.js';
import { decodeAudio } from './ffmpeg-audio.js';

/** One second of a 300 Hz tone at 8 kHz, in the asked container. */
async function tone(format: string, codec: string[] = []): Promise<Buffer> {
  return (await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=8000:duration=1', ...codec, '-f', format, 'pipe:1'])).stdout;
}

describe('decodeAudio (untrusted voice samples)', () => {
  it.each([
    ['WAV', () => tone('wav')],
    ['MP3', () => tone('mp3', ['-codec:a', 'libmp3lame'])],
    ['FLAC', () => tone('flac')],
    ['Ogg Vorbis', () => tone('ogg', ['-codec:a', 'libvorbis'])],
    ['WebM Opus', () => tone('webm', ['-codec:a', 'libopus', '-ar', '48000'])],
  ])('decodes %s with the demuxer its leading bytes name', async (_name, make) => {
    const samples = await decodeAudio(await make(), 8000, 5);
    // About a second: codecs pad or trim a few frames.
    expect(samples.length).toBeGreaterThan(7000);
    expect(samples.length).toBeLessThan(9500);
  });

  it('refuses a playlist that would make ffmpeg read a file of the server (HLS pointing at a local WAV)', async () => {
    await withTempDir(async (dir) => {
      const secret = join(dir, 'server-file.wav');
      await writeFile(secret, await tone('wav'));
      const playlist = Buffer.from(`#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${secret}\n#EXT-X-ENDLIST\n`);
      const outcome = await decodeAudio(playlist, 8000, 5).then(
        (samples) => `decoded ${samples.length} samples of another file`,
        (err: unknown) => err,
      );
      expect(outcome).toBeInstanceOf(AppError);
      expect((outcome as AppError).code).toBe('unsupported_media_type');
    });
  });

  it('refuses bytes whose leading bytes name no audio type, before running ffmpeg', async () => {
    await expect(decodeAudio(Buffer.from('just some words, not audio'), 8000, 5)).rejects.toMatchObject({ code: 'unsupported_media_type' });
  });
});
