import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffprobe from '@ffprobe-installer/ffprobe';
import { pcm16Wav } from '../../src/platform/media/audio-type.js';
import type { TestUser } from './api.js';
import { api } from './api.js';
import { waitFor, type TestServer } from './server.js';

/** A mono 16-bit WAV of a tone at `hz`; with `pulseHz`, its loudness pulses like syllables. */
export function toneWav(hz: number, seconds: number, opts: { rate?: number; pulseHz?: number } = {}): Buffer {
  const rate = opts.rate ?? 16000;
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const t = i / rate;
    const envelope = opts.pulseHz === undefined ? 1 : 0.5 + 0.5 * Math.sin(2 * Math.PI * opts.pulseHz * t);
    data.writeInt16LE(Math.round(12000 * envelope * Math.sin(2 * Math.PI * hz * t)), i * 2);
  }
  return pcm16Wav(data, rate);
}

export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  duration: string;
}

/** The streams of a file as the bundled ffprobe reads them. */
export function probeStreams(bytes: Buffer): ProbedStream[] {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-probe-'));
  try {
    const file = join(dir, 'media');
    writeFileSync(file, bytes);
    const out = execFileSync(ffprobe.path, ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,duration', '-of', 'json', file]);
    return JSON.parse(out.toString()).streams;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bytes a signed media URL of ours serves, fetched from this test server (the URL may name another public host). */
export async function mediaBytes(server: TestServer, url: string): Promise<Buffer> {
  const u = new URL(url);
  const res = await fetch(`http://127.0.0.1:${server.port}${u.pathname}${u.search}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A job once it has completed or failed. */
export function finishedJob(server: TestServer, user: TestUser, id: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  return waitFor(async () => {
    const job = (await api(server).get(`/jobs/${id}`).set(user.auth)).body.job as Record<string, any> | undefined;
    return job && ['completed', 'failed'].includes(job.status) ? job : undefined;
  }, timeoutMs, `job ${id}`);
}
