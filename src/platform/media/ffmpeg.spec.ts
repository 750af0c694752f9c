import { describe, expect, it } from '@jest/globals';
import { constants } from 'node:fs';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpegPath, ffprobePath, isMediaToolError, MediaToolError, probeMedia, runFfmpeg, withTempDir } from './ffmpeg.js';

/** A short real MP4 (H.264 + AAC) made by the bundled ffmpeg. */
async function sampleMp4(seconds = 1): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const out = join(dir, 'sample.mp4');
    await runFfmpeg([
      '-f', 'lavfi', '-i', `testsrc=size=96x64:rate=25:duration=${seconds}`,
      '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart', out,
    ]);
    return readFile(out);
  });
}

async function failureOf(p: Promise<unknown>): Promise<MediaToolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isMediaToolError(err)) throw new Error(`expected a MediaToolError, got ${String(err)}`);
  return err;
}

describe('bundled ffmpeg and ffprobe', () => {
  it('locates both binaries, executable', async () => {
    for (const path of [await ffmpegPath(), await ffprobePath()]) {
      await expect(access(path, constants.X_OK)).resolves.toBeUndefined();
    }
  });

  it('pipes a buffer through stdin and answers stdout: 0.5 s of 8 kHz mono PCM is 8000 bytes', async () => {
    const wav = (await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=8000:duration=0.5', '-f', 'wav', 'pipe:1'])).stdout;
    const { stdout } = await runFfmpeg(['-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', '8000', 'pipe:1'], { input: wav });
    expect(stdout.length).toBe(8000);
  });

  it('feeds chunks from an async iterable (raw frames) until they run out', async () => {
    async function* frames() {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(16 * 16 * 3, i * 20);
    }
    const { stdout } = await runFfmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '16x16', '-r', '25', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { input: frames() });
    expect(stdout.length).toBe(10 * 16 * 16);
    expect(stdout[0]).toBeLessThan(stdout[stdout.length - 1]);
  });

  it('fails with the end of ffmpeg stderr when ffmpeg refuses its input', async () => {
    const err = await failureOf(runFfmpeg(['-i', 'pipe:0', '-f', 'null', '-'], { input: Buffer.from('this is not media at all') }));
    expect(err.kind).toBe('failed');
    expect(err.exitCode).not.toBe(0);
    expect(err.stderr).not.toBe('');
    expect(err.message).toMatch(/^ffmpeg exited with \d+: /);
  });

  it('kills a running ffmpeg on abort', async () => {
    const controller = new AbortController();
    let pulled = 0;
    // An endless stream of frames: only the abort (after ffmpeg has read a few) ends the run.
    async function* frames() {
      for (;;) {
        if (++pulled === 3) controller.abort();
        yield Buffer.alloc(16 * 16 * 3);
      }
    }
    const run = runFfmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '16x16', '-i', 'pipe:0', '-f', 'null', '-'], { input: frames(), signal: controller.signal });
    expect((await failureOf(run)).kind).toBe('aborted');
    expect(pulled).toBeGreaterThanOrEqual(3);
  });

  it('refuses to start when already aborted', async () => {
    expect((await failureOf(runFfmpeg(['-version'], { signal: AbortSignal.abort() }))).kind).toBe('aborted');
  });

  it('kills ffmpeg on timeout', async () => {
    const err = await failureOf(runFfmpeg(['-re', '-f', 'lavfi', '-i', 'anullsrc', '-f', 'null', '-'], { timeoutMs: 50 }));
    expect(err.kind).toBe('timeout');
  });

  it('kills ffmpeg when it writes more than allowed', async () => {
    const err = await failureOf(runFfmpeg(['-f', 'lavfi', '-i', 'anullsrc=sample_rate=48000', '-t', '10', '-f', 's16le', 'pipe:1'], { maxStdoutBytes: 1000 }));
    expect(err.kind).toBe('too_large');
  });

  it('stops the input and rejects with the producer error when the producer throws', async () => {
    async function* frames() {
      yield Buffer.alloc(16 * 16 * 3);
      throw new Error('producer broke');
    }
    const err = await runFfmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '16x16', '-i', 'pipe:0', '-f', 'null', '-'], { input: frames() }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('producer broke');
  });
});

describe('probeMedia', () => {
  it('reads the streams of an MP4, from bytes and from a path', async () => {
    const mp4 = await sampleMp4(1);
    const fromBytes = await probeMedia(mp4);
    expect(fromBytes.formatName).toContain('mp4');
    expect(fromBytes.streams.map((s) => [s.codecType, s.codecName])).toEqual([
      ['video', 'h264'],
      ['audio', 'aac'],
    ]);
    expect(fromBytes.streams[0]).toMatchObject({ width: 96, height: 64, pixelFormat: 'yuv420p', frameCount: 25 });
    expect(fromBytes.streams[0].durationSeconds).toBeCloseTo(1, 1);
    const fromPath = await withTempDir(async (dir) => {
      await writeFile(join(dir, 'a.mp4'), mp4);
      return probeMedia(join(dir, 'a.mp4'));
    });
    expect(fromPath).toEqual(fromBytes);
  });

  it('fails on bytes that are not media', async () => {
    expect((await failureOf(probeMedia(Buffer.from('plain text, no media here')))).kind).toBe('failed');
  });
});

describe('withTempDir', () => {
  it('gives a private directory and removes it afterwards, also when the work throws', async () => {
    let seen = '';
    await withTempDir(async (dir) => {
      seen = dir;
      await writeFile(join(dir, 'f'), 'x');
      expect((await stat(dir)).mode & 0o077).toBe(0);
    });
    await expect(stat(seen)).rejects.toMatchObject({ code: 'ENOENT' });
    const failed = await withTempDir(async (dir) => {
      seen = dir;
      throw new Error('work failed');
    }).catch((e: Error) => e.message);
    expect(failed).toBe('work failed');
    await expect(stat(seen)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
