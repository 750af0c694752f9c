import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../../core/index.js';
import { isMediaToolError, runFfmpeg, sniffAudioType, untrustedAudioInput, untrustedInput, wavDurationSeconds, withTempDir } from '../../../../../platform/media/index.js';
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

/** 128 kb/s of audio, the rate `wavToMp3` encodes at. */
const MP3_BYTES_PER_SECOND = 128_000 / 8;
/**
 * What an MP3 holds besides its audio: an ID3v2 tag, the Xing/LAME info frame, and the encoder's
 * delay and padding rounded up to whole frames (a Layer III frame is at most 1441 bytes). These
 * do not shrink with the audio: a near-silent WAV of 400 bytes still makes an MP3 of about 1 KB.
 */
const MP3_FRAMING_BYTES = 16 * 1024;

/**
 * The most `wavToMp3` lets ffmpeg write for a WAV: its audio at 128 kb/s (or the WAV's own size,
 * should its header understate it) plus the framing every MP3 carries. It bounds a runaway
 * encoder, so it must never be below what a correct encoding of a short WAV takes.
 */
export function mp3OutputCap(wav: Buffer): number {
  const seconds = wavDurationSeconds(wav) ?? 0;
  return Math.max(wav.length, Math.ceil(seconds * MP3_BYTES_PER_SECOND)) + MP3_FRAMING_BYTES;
}

/** A WAV as a 128 kb/s MP3 (LAME), through pipes. */
export async function wavToMp3(wav: Buffer, signal?: AbortSignal): Promise<Buffer> {
  const args = [...untrustedInput('wav', 'pipe:0'), '-vn', '-codec:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3', 'pipe:1'];
  try {
    return (await runFfmpeg(args, { input: wav, timeoutMs: 30_000 + Math.ceil(wav.length / 1000), maxStdoutBytes: mp3OutputCap(wav), signal })).stdout;
  } catch (err) {
    if (signal?.aborted) throw upstreamFailed('local', 'aborted', 'The speech was cancelled.');
    if (isMediaToolError(err) && err.kind === 'unavailable') throw upstreamFailed('local', 'not_configured', err.message);
    throw upstreamFailed('local', 'encoding_failed', `The speech could not be encoded as MP3: ${(err as Error).message}`);
  }
}
