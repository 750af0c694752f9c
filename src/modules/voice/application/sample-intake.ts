import { Injectable } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import { sniffAudioType } from '../../../platform/media/index.js';
import { SafeFetcher } from '../../../platform/outbound/index.js';
import type { VoiceSample } from '../../generation/index.js';
import { MAX_SAMPLE_BYTES, MAX_SAMPLES, MAX_SAMPLES_BYTES } from '../domain/voice.js';

/**
 * A clone's samples, checked before anything is charged: uploaded parts, or URLs fetched now
 * through the SSRF-safe fetcher (a URL we will not fetch is the request's fault: 400). Each must be
 * audio by its bytes (415), at most 10 MiB (413), 50 MiB in all (413), 1 to 25 of them.
 */
@Injectable()
export class SampleIntake {
  constructor(private readonly fetcher: SafeFetcher) {}

  fromUploads(files: ReadonlyArray<{ buffer: Buffer; originalname?: string }>): VoiceSample[] {
    return this.checked(files.map((f, i) => ({ bytes: f.buffer, name: f.originalname || `sample-${i + 1}` })));
  }

  async fromUrls(urls: readonly string[], signal?: AbortSignal): Promise<VoiceSample[]> {
    if (urls.length === 0 || urls.length > MAX_SAMPLES) throw countError();
    const files = [];
    for (const [i, url] of urls.entries()) {
      const got = await this.fetcher.download(url, { maxBytes: MAX_SAMPLE_BYTES, signal, field: `sample_urls[${i}]` });
      files.push({ bytes: got.bytes, name: `sample-${i + 1}` });
    }
    return this.checked(files);
  }

  private checked(files: Array<{ bytes: Buffer; name: string }>): VoiceSample[] {
    if (files.length === 0 || files.length > MAX_SAMPLES) throw countError();
    const total = files.reduce((n, f) => n + f.bytes.length, 0);
    if (total > MAX_SAMPLES_BYTES) throw new AppError('payload_too_large', 'Voice samples can be at most 50 MiB in all.');
    return files.map((f, i) => {
      if (f.bytes.length > MAX_SAMPLE_BYTES) throw new AppError('payload_too_large', 'A voice sample can be at most 10 MiB.', { sample: i });
      const kind = sniffAudioType(f.bytes);
      if (!kind) throw new AppError('unsupported_media_type', `Voice sample ${i + 1} is not MP3, WAV, OGG, FLAC, M4A or WebM audio.`, { sample: i });
      return { bytes: f.bytes, contentType: kind.mime, filename: `${f.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60) || `sample-${i + 1}`}` };
    });
  }
}

function countError(): AppError {
  return new AppError('validation_failed', `A clone needs 1 to ${MAX_SAMPLES} samples.`, [{ field: 'samples', message: `1 to ${MAX_SAMPLES} audio samples are required` }]);
}
