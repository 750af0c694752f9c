import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../../core/index.js';
import { isMediaToolError, runFfmpeg, sniffAudioType, untrustedAudioInput, untrustedInput, withTempDir } from '../../../../../platform/media/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';

/**
 * An uploaded audio file (WAV, MP3, Ogg, FLAC, M4A, WebM by its leading bytes) as mono float
 * samples at `sampleRate`, at most `maxSeconds` of it. The input goes through a file, not a pipe:
 * an M4A whose index sits at its end needs seeking.
 */
export async function decodeAudio(bytes: Buffer, sampleRate: number, maxSeconds: number, signal?: AbortSignal): Promise<Float32Array> {
  const type = sniffAudioType(bytes);
  if (!type) throw unreadable('not WAV, MP3, Ogg, FLAC, M4A or WebM');
  const raw = await withTempDir(async (dir) => {
    const input = join(dir, 'sample');
    await writeFile(input, bytes);
    const args = [...untrustedAudioInput(type, input), '-vn', '-t', String(maxSeconds), '-ac', '1', '-ar', String(sampleRate), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'];
    const run = await runFfmpeg(args, { timeoutMs: 30_000 + maxSeconds * 200, maxStdoutBytes: sampleRate * 2 * (maxSeconds + 1), signal }).catch((err: unknown) => {
      throw signal?.aborted ? upstreamFailed('local', 'aborted', 'The voice analysis was cancelled.') : unreadable(err);
    });
    return run.stdout;
  });
  const samples = new Float32Array(raw.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = raw.readInt16LE(i * 2) / 32768;
  return samples;
}

function unreadable(err: unknown): AppError {
  const reason = typeof err === 'string' ? err : String((err as Error)?.message ?? err);
  return new AppError('unsupported_media_type', 'A voice sample could not be decoded as audio.', { reason: reason.slice(0, 300) });
}

/** A WAV as a 128 kb/s MP3 (LAME), through pipes. */
export async function wavToMp3(wav: Buffer, signal?: AbortSignal): Promise<Buffer> {
  const args = [...untrustedInput('wav', 'pipe:0'), '-vn', '-codec:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3', 'pipe:1'];
  try {
    return (await runFfmpeg(args, { input: wav, timeoutMs: 30_000 + Math.ceil(wav.length / 1000), maxStdoutBytes: wav.length, signal })).stdout;
  } catch (err) {
    if (signal?.aborted) throw upstreamFailed('local', 'aborted', 'The speech was cancelled.');
    if (isMediaToolError(err) && err.kind === 'unavailable') throw upstreamFailed('local', 'not_configured', err.message);
    throw upstreamFailed('local', 'encoding_failed', `The speech could not be encoded as MP3: ${(err as Error).message}`);
  }
}
