import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { AudioType } from './audio-type.js';
import { runVersion, selectMediaTool, type MediaTool, type MediaToolCandidates, type MediaToolSelection, type VersionProbe } from './media-tools.js';

export type MediaToolErrorKind = 'unavailable' | 'failed' | 'aborted' | 'timeout' | 'too_large';

/** Why running ffmpeg or ffprobe failed; callers decide what each means for their users. */
export class MediaToolError extends Error {
  constructor(
    readonly kind: MediaToolErrorKind,
    message: string,
    /** The tail of the tool's stderr, where its own explanation is. */
    readonly stderr = '',
    readonly exitCode: number | null = null,
  ) {
    super(message);
    this.name = 'MediaToolError';
  }
}

export function isMediaToolError(err: unknown): err is MediaToolError {
  return err instanceof MediaToolError;
}

type Tool = MediaTool;

const located = new Map<Tool, Promise<string>>();
const configuredPaths: Partial<Record<Tool, string>> = {};

/**
 * Chooses ffmpeg and ffprobe once, at start-up (FFMPEG_PATH / FFPROBE_PATH, else the system's
 * release ≥ 6, else the bundled copies), and answers what was chosen with the warnings to log.
 * A configured path that does not run stops the start.
 */
export async function configureMediaTools(paths: { ffmpegPath?: string; ffprobePath?: string }, probe: VersionProbe = runVersion): Promise<MediaToolSelection[]> {
  located.clear();
  configuredPaths.ffmpeg = paths.ffmpegPath;
  configuredPaths.ffprobe = paths.ffprobePath;
  const selections: MediaToolSelection[] = [];
  for (const tool of ['ffmpeg', 'ffprobe'] as const) {
    const selection = await selectMediaTool(tool, candidates(tool), probe);
    if (selection.choice) located.set(tool, Promise.resolve(selection.choice.path));
    selections.push(selection);
  }
  return selections;
}

/** The ffmpeg chosen at start-up (or, where nothing configured it, by the same rules on first use). */
export function ffmpegPath(): Promise<string> {
  return locate('ffmpeg');
}

/** The ffprobe chosen like ffmpeg. */
export function ffprobePath(): Promise<string> {
  return locate('ffprobe');
}

function locate(tool: Tool): Promise<string> {
  let found = located.get(tool);
  if (!found) {
    found = selectMediaTool(tool, candidates(tool), runVersion).then((s) => {
      if (!s.choice) throw new MediaToolError('unavailable', s.warnings.join(' '));
      return s.choice.path;
    });
    // A failure is not remembered: an operator may fix the install without a restart.
    found.catch(() => located.delete(tool));
    located.set(tool, found);
  }
  return found;
}

function candidates(tool: Tool): MediaToolCandidates {
  return { configured: configuredPaths[tool], system: tool, bundled: () => bundledBinary(tool) };
}

/** The copy shipped in `@ffmpeg-installer/ffmpeg` / `@ffprobe-installer/ffprobe`, checked to be executable. */
async function bundledBinary(tool: Tool): Promise<{ path: string; version: string }> {
  // Loaded on first use: the installer packages throw at import on a platform they do not ship.
  const mod = tool === 'ffmpeg' ? await import('@ffmpeg-installer/ffmpeg') : await import('@ffprobe-installer/ffprobe');
  await access(mod.default.path, constants.X_OK);
  return { path: mod.default.path, version: mod.default.version };
}

/**
 * ffmpeg's demuxer for each sniffed audio type. Untrusted bytes are opened with the format our
 * sniffing decided, never by ffmpeg's own probing (which would hand them to any of its hundreds
 * of demuxers, playlists included).
 */
const AUDIO_DEMUXERS: Record<AudioType['ext'], string> = { mp3: 'mp3', wav: 'wav', ogg: 'ogg', flac: 'flac', m4a: 'mov', webm: 'matroska' };

/**
 * The input options for an untrusted file or pipe: an explicit demuxer, and only the file and pipe
 * protocols, so nothing inside the media (a playlist, a reference) can make ffmpeg open a URL.
 */
export function untrustedInput(format: string, path: string): string[] {
  return ['-protocol_whitelist', 'file,pipe', '-f', format, '-i', path];
}

/** `untrustedInput` for audio whose type was sniffed from its leading bytes. */
export function untrustedAudioInput(type: AudioType, path: string): string[] {
  return untrustedInput(AUDIO_DEMUXERS[type.ext], path);
}

/** ffmpeg's demuxer for each sniffed video type (MP4 and QuickTime share the `mov` demuxer). */
const VIDEO_DEMUXERS = { 'video/mp4': 'mov', 'video/quicktime': 'mov', 'video/webm': 'matroska' } as const;
export type UntrustedVideoType = keyof typeof VIDEO_DEMUXERS;

/**
 * `untrustedInput` for video whose type was sniffed from its leading bytes: bytes that only start
 * like an MP4 are refused by the `mov` demuxer instead of being handed to whichever demuxer
 * ffmpeg's probing likes best for the rest.
 */
export function untrustedVideoInput(type: UntrustedVideoType, path: string): string[] {
  return untrustedInput(VIDEO_DEMUXERS[type], path);
}

export interface RunOptions {
  /** Written to stdin: one buffer, or chunks (raw frames) written as fast as the tool reads them. */
  input?: Buffer | AsyncIterable<Buffer>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Most stdout kept; a tool that writes more is killed (`too_large`). Default 256 MiB. */
  maxStdoutBytes?: number;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs the chosen ffmpeg (no shell: arguments are passed as they are) and answers its stdout and
 * stderr once it exits 0. Anything else rejects with a MediaToolError holding the end of stderr; on
 * abort or timeout the process is killed.
 */
export async function runFfmpeg(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const path = await ffmpegPath();
  const quiet = ['-hide_banner', '-nostats', '-loglevel', 'error', ...(opts.input ? [] : ['-nostdin'])];
  return new ToolRun('ffmpeg', opts).run(path, [...quiet, ...args]);
}

async function runFfprobe(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new ToolRun('ffprobe', opts).run(await ffprobePath(), ['-hide_banner', '-loglevel', 'error', ...args]);
}

const STDERR_KEPT = 16 * 1024;
const DEFAULT_MAX_STDOUT = 256 * 1024 * 1024;
/** Bytes queued on stdin before the producer waits for the tool to read: two raw 720p frames. */
const STDIN_QUEUE = 6 * 1024 * 1024;

/** One child process: its output collected under bounds, and stopped once, for one reason. */
class ToolRun {
  private readonly stdout: Buffer[] = [];
  private stdoutBytes = 0;
  private stderr = '';
  private stopped: Error | undefined;
  private child: ChildProcess | undefined;

  constructor(
    private readonly tool: Tool,
    private readonly opts: RunOptions,
  ) {}

  run(path: string, args: string[]): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      if (this.opts.signal?.aborted) return reject(new MediaToolError('aborted', `${this.tool} was cancelled.`));
      const child = spawn(path, args, { stdio: [this.opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'], windowsHide: true });
      this.child = child;
      const onAbort = () => this.stop(new MediaToolError('aborted', `${this.tool} was cancelled.`, this.stderr));
      this.opts.signal?.addEventListener('abort', onAbort, { once: true });
      const timer = this.opts.timeoutMs === undefined ? undefined : setTimeout(() => this.stop(new MediaToolError('timeout', `${this.tool} did not finish within ${this.opts.timeoutMs} ms.`, this.stderr)), this.opts.timeoutMs);
      child.stdout!.on('data', (chunk: Buffer) => this.collect(chunk));
      child.stderr!.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEPT)));
      if (this.opts.input && child.stdin) feed(child.stdin, this.opts.input, () => this.stopped !== undefined).catch((err: Error) => this.stop(err));
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        this.opts.signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      child.on('error', (err) => settle(() => reject(this.stopped ?? new MediaToolError('unavailable', `${this.tool} could not be started: ${err.message}`))));
      child.on('close', (code, signal) => settle(() => (this.stopped || code !== 0 ? reject(this.failure(code, signal)) : resolve({ stdout: Buffer.concat(this.stdout), stderr: this.stderr }))));
    });
  }

  private collect(chunk: Buffer): void {
    this.stdoutBytes += chunk.length;
    if (this.stdoutBytes > (this.opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT)) {
      this.stop(new MediaToolError('too_large', `${this.tool} wrote more output than allowed.`, this.stderr));
      return;
    }
    this.stdout.push(chunk);
  }

  private stop(reason: Error): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.child?.kill('SIGKILL');
  }

  private failure(code: number | null, signal: NodeJS.Signals | null): Error {
    if (this.stopped) return this.stopped;
    const said = lastLines(this.stderr);
    return new MediaToolError('failed', `${this.tool} exited with ${code ?? signal}${said ? `: ${said}` : '.'}`, this.stderr, code);
  }
}

/** Writes the input to stdin, waiting while the tool is behind; stops quietly once the tool is gone. */
async function feed(stdin: Writable, input: Buffer | AsyncIterable<Buffer>, stopped: () => boolean): Promise<void> {
  // EPIPE when the tool exits before reading everything: its exit status and stderr say why.
  stdin.on('error', () => undefined);
  try {
    const chunks = Buffer.isBuffer(input) ? [input] : input;
    for await (const chunk of chunks) {
      if (stopped() || stdin.destroyed) break;
      stdin.write(chunk);
      if (stdin.writableLength > STDIN_QUEUE) await drained(stdin);
    }
  } finally {
    stdin.end();
  }
}

function drained(stream: Writable): Promise<void> {
  if (stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function lastLines(stderr: string): string {
  const lines = stderr.trim().split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(-3).join(' | ').slice(-400);
}

/**
 * Runs `work` with a fresh private directory under the OS temp dir (mode 0700, by mkdtemp), and
 * removes it afterwards, whether `work` succeeded or not.
 */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'persona-media-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface MediaStream {
  index: number;
  codecType: string;
  codecName: string;
  durationSeconds?: number;
  width?: number;
  height?: number;
  /** Frames (video) or audio frames, when the container says. */
  frameCount?: number;
  sampleRate?: number;
  pixelFormat?: string;
}

export interface MediaProbe {
  formatName: string;
  durationSeconds?: number;
  streams: MediaStream[];
}

/**
 * What ffprobe reads in a media file (bytes are written to a private temp file first: MP4 needs
 * seeking). `format` names the demuxer; left out only for files we made ourselves.
 */
export async function probeMedia(input: Buffer | string, opts: { signal?: AbortSignal; timeoutMs?: number; format?: string } = {}): Promise<MediaProbe> {
  if (Buffer.isBuffer(input)) {
    return withTempDir(async (dir) => {
      const path = join(dir, 'input');
      await writeFile(path, input);
      return probeMedia(path, opts);
    });
  }
  const source = opts.format ? untrustedInput(opts.format, input) : ['-protocol_whitelist', 'file,pipe', '-i', input];
  const { stdout } = await runFfprobe(['-print_format', 'json', '-show_format', '-show_streams', ...source], { ...opts, maxStdoutBytes: 4 * 1024 * 1024 });
  return parseProbe(stdout);
}

function parseProbe(stdout: Buffer): MediaProbe {
  let raw: { format?: Record<string, unknown>; streams?: Record<string, unknown>[] };
  try {
    raw = JSON.parse(stdout.toString('utf8'));
  } catch {
    throw new MediaToolError('failed', 'ffprobe answered something that is not JSON.');
  }
  const num = (v: unknown): number | undefined => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) ? Number(v) : undefined);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const streams = (raw.streams ?? []).map((s) => ({
    index: Number(s.index),
    codecType: str(s.codec_type),
    codecName: str(s.codec_name),
    durationSeconds: num(s.duration),
    width: num(s.width),
    height: num(s.height),
    frameCount: num(s.nb_frames),
    sampleRate: num(s.sample_rate),
    pixelFormat: str(s.pix_fmt) || undefined,
  }));
  return { formatName: str(raw.format?.format_name), durationSeconds: num(raw.format?.duration), streams };
}
