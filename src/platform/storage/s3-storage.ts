import { Readable } from 'node:stream';
import { assertStorageKey, contentTypeOfKey, isStorageKey, MEDIA_PATH } from './storage-keys.js';
import { amzDate, encodeRfc3986, EMPTY_PAYLOAD_HASH, presignV4, sha256Hex, signV4, type SigV4Credentials } from './sigv4.js';
import { Storage, type ObjectStream, type StoredObject } from './storage.types.js';

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Older records' plain URLs may start here; clients are always given presigned URLs of `endpoint`. */
  publicBaseUrl?: string;
  /** Our own public URL, for the media route. */
  publicUrl: string;
  timeoutMs?: number;
}

type FetchFn = typeof fetch;

/** The longest life S3 allows a presigned URL. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** Any S3-compatible store (AWS, MinIO, R2...), path-style requests signed with SigV4. */
export class S3Storage extends Storage {
  constructor(
    private readonly opts: S3Options,
    private readonly fetchFn: FetchFn = fetch,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
  }

  async put(key: string, body: Buffer, contentType: string): Promise<StoredObject> {
    assertStorageKey(key);
    const res = await this.send('PUT', key, body, { 'content-type': contentType });
    if (!res.ok) throw await s3Error('PUT', key, res);
    await res.arrayBuffer();
    return { key, url: this.urlFor(key) };
  }

  async get(key: string): Promise<{ body: Buffer; contentType: string } | null> {
    if (!isStorageKey(key)) return null;
    const res = await this.send('GET', key);
    if (res.status === 404) return drained(res);
    if (!res.ok) throw await s3Error('GET', key, res);
    return { body: Buffer.from(await res.arrayBuffer()), contentType: contentTypeOfKey(key) };
  }

  async open(key: string): Promise<ObjectStream | null> {
    if (!isStorageKey(key)) return null;
    const res = await this.send('GET', key);
    if (res.status === 404) return drained(res);
    if (!res.ok || !res.body) throw await s3Error('GET', key, res);
    const length = Number(res.headers.get('content-length'));
    return {
      stream: Readable.fromWeb(res.body),
      contentType: contentTypeOfKey(key),
      size: Number.isFinite(length) && length >= 0 ? length : undefined,
    };
  }

  async delete(key: string): Promise<void> {
    if (!isStorageKey(key)) return;
    const res = await this.send('DELETE', key);
    if (!res.ok && res.status !== 404) throw await s3Error('DELETE', key, res);
    await res.arrayBuffer();
  }

  urlFor(key: string): string {
    return this.opts.publicBaseUrl ? `${this.opts.publicBaseUrl}/${key}` : `${this.opts.publicUrl}${MEDIA_PATH}/${key}`;
  }

  /**
   * A presigned GET of the object itself: clients fetch from the store, never through us. The store is
   * asked to answer `Cache-Control: private` for no longer than the URL lives.
   */
  signedUrl(key: string, expires: number): string {
    assertStorageKey(key);
    const date = this.now();
    const life = Math.min(MAX_PRESIGN_SECONDS, Math.max(1, expires - Math.floor(date.getTime() / 1000)));
    const url = this.objectUrl(key);
    url.searchParams.set('response-cache-control', `private, max-age=${life}`);
    return presignV4('GET', url, this.credentials(), date, life);
  }

  private objectUrl(key: string): URL {
    const path = [this.opts.bucket, ...key.split('/')].map(encodeRfc3986).join('/');
    return new URL(`${this.opts.endpoint}/${path}`);
  }

  private credentials(): SigV4Credentials {
    return { accessKeyId: this.opts.accessKeyId, secretAccessKey: this.opts.secretAccessKey, region: this.opts.region, service: 's3' };
  }

  private send(method: 'GET' | 'PUT' | 'DELETE', key: string, body?: Buffer, extra: Record<string, string> = {}): Promise<Response> {
    const url = this.objectUrl(key);
    const date = this.now();
    const payloadHash = body ? sha256Hex(body) : EMPTY_PAYLOAD_HASH;
    const headers: Record<string, string> = {
      host: url.host,
      'x-amz-date': amzDate(date),
      'x-amz-content-sha256': payloadHash,
      ...extra,
    };
    const authorization = signV4({ method, url, headers, payloadHash }, this.credentials(), date);
    const { host: _host, ...sent } = headers;
    return this.fetchFn(url, {
      method,
      headers: { ...sent, authorization },
      body: body ? new Uint8Array(body) : undefined,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
    });
  }
}

async function drained(res: Response): Promise<null> {
  await res.arrayBuffer().catch(() => undefined);
  return null;
}

async function s3Error(method: string, key: string, res: Response): Promise<Error> {
  const text = await res.text().catch(() => '');
  const code = /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1];
  return new Error(`object store ${method} ${key} answered ${res.status}${code ? ` ${code}` : ''}`);
}
