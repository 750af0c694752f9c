import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { OutboundError } from './outbound-error.js';

function tooLarge(maxBytes: number, what: string): OutboundError {
  return new OutboundError('too_large', `${what} is larger than the ${maxBytes}-byte limit.`);
}

function declaredLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/**
 * Reads a fetch response body, stopping as soon as it passes `maxBytes`: a declared length
 * over the cap is refused before reading, and a lying or absent one is caught while streaming.
 */
export async function readWebBody(res: Response, maxBytes: number, what = 'The response'): Promise<Buffer> {
  const declared = declaredLength(res.headers.get('content-length'));
  if (declared !== undefined && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes, what);
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes, what);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Reads at most `limit` bytes of an error body for a message, then lets the rest go. */
export async function readWebSnippet(res: Response, limit = 2048): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } catch {
    // A broken error body must not hide the status that explains the failure.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return startOf(chunks, limit);
}

/** `readWebSnippet` for a Node stream: the start of an error body, the rest let go. */
export async function readNodeSnippet(stream: Readable, limit = 2048): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      total += (chunk as Buffer).length;
      if (total >= limit) break;
    }
  } catch {
    // A broken error body must not hide the status that explains the failure.
  } finally {
    stream.destroy();
  }
  return startOf(chunks, limit);
}

/** The same cap for a Node stream (the pinned-connection downloader). */
export async function readNodeBody(stream: Readable, maxBytes: number, contentLength?: string, what = 'The download'): Promise<Buffer> {
  const declared = declaredLength(contentLength);
  if (declared !== undefined && declared > maxBytes) {
    stream.destroy();
    throw tooLarge(maxBytes, what);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > maxBytes) {
      stream.destroy();
      throw tooLarge(maxBytes, what);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** The first `limit` bytes as text; a character the limit cuts is left out whole, so the text stays within it. */
function startOf(chunks: readonly Uint8Array[], limit: number): string {
  return new StringDecoder('utf8').write(Buffer.concat(chunks).subarray(0, limit));
}
