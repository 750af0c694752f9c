import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../../../core/index.js';
import { wavDurationSeconds } from '../../../../../platform/media/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';

let binary: Promise<string> | undefined;

/** The ffmpeg shipped in @ffmpeg-installer, loaded on first use: its module throws on an unsupported platform. */
function ffmpegPath(): Promise<string> {
  binary ??= import('@ffmpeg-installer/ffmpeg').then(
    (m) => m.default.path,
    (err: unknown) => {
      binary = undefined;
      throw upstreamFailed('local', 'not_configured', `The bundled ffmpeg is not available: ${String(err)}`);
    },
  );
  return binary;
}

export interface FfmpegOptions {
  /** Bytes written to ffmpeg's standard input (`pipe:0` in the arguments). */
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/**
 * Runs the bundled ffmpeg without a shell (arguments are never parsed by one) and answers what
 * it wrote to standard output. A non-zero exit is an Error carrying ffmpeg's last words; callers
 * decide whether that is the input's fault or ours.
 */
export async function runFfmpeg(args: string[], opts: FfmpegOptions): Promise<Buffer> {
  const child = spawn(await ffmpegPath(), ['-hide_banner', '-loglevel', 'error', ...args], { stdio: ['pipe', 'pipe', 'pipe'], signal: opts.signal });
  const out: Buffer[] = [];
  let outBytes = 0;
  let errText = '';
  let overflow = false;
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  child.stdout.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
    if (outBytes > opts.maxOutputBytes) {
      overflow = true;
      child.kill('SIGKILL');
    } else out.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => (errText = (errText + chunk.toString('utf8')).slice(-2000)));
  // ffmpeg may stop reading early (a broken input); the exit code says why, not EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdin.end(opts.stdin ?? Buffer.alloc(0));
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (overflow) throw new Error(`ffmpeg wrote more than ${opts.maxOutputBytes} bytes`);
    if (code !== 0) throw new Error(`ffmpeg exited with ${code ?? 'a signal'}: ${errText.trim().slice(-500)}`);
    return Buffer.concat(out);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Any audio file ffmpeg reads, as mono float samples at `sampleRate`, at most `maxSeconds` of it.
 * The input goes through a file, not a pipe: an M4A whose index sits at its end needs seeking.
 */
export async function decodeAudio(bytes: Buffer, sampleRate: number, maxSeconds: number, signal?: AbortSignal): Promise<Float32Array> {
  const dir = await mkdtemp(join(tmpdir(), 'persona-audio-'));
  try {
    const input = join(dir, 'sample');
    await writeFile(input, bytes);
    const args = ['-nostdin', '-i', input, '-vn', '-t', String(maxSeconds), '-ac', '1', '-ar', String(sampleRate), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'];
    const raw = await runFfmpeg(args, { timeoutMs: 30_000 + maxSeconds * 200, maxOutputBytes: sampleRate * 2 * (maxSeconds + 1), signal }).catch((err: unknown) => {
      throw signal?.aborted ? upstreamFailed('local', 'aborted', 'The voice analysis was cancelled.') : unreadable(err);
    });
    const samples = new Float32Array(raw.length >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = raw.readInt16LE(i * 2) / 32768;
    return samples;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function unreadable(err: unknown): AppError {
  return new AppError('unsupported_media_type', 'A voice sample could not be decoded as audio.', { reason: String((err as Error)?.message ?? err).slice(0, 300) });
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
  const args = ['-f', 'wav', '-i', 'pipe:0', '-vn', '-codec:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3', 'pipe:1'];
  try {
    return await runFfmpeg(args, { stdin: wav, timeoutMs: 30_000 + Math.ceil(wav.length / 1000), maxOutputBytes: mp3OutputCap(wav), signal });
  } catch (err) {
    if (signal?.aborted) throw upstreamFailed('local', 'aborted', 'The speech was cancelled.');
    throw upstreamFailed('local', 'encoding_failed', `The speech could not be encoded as MP3: ${(err as Error).message}`);
  }
}
