import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  url: string;
}

export interface ObjectStream {
  stream: Readable;
  contentType: string;
  size?: number;
}

/**
 * Where uploaded and generated media live. `urlFor` is an object's plain, unsigned URL: an identifier
 * records may keep, which serves nothing. Clients get `signedUrl`s, which expire.
 */
export abstract class Storage {
  abstract put(key: string, body: Buffer, contentType: string): Promise<StoredObject>;
  abstract get(key: string): Promise<{ body: Buffer; contentType: string } | null>;
  /** Streams an object for serving; null when it does not exist. */
  abstract open(key: string): Promise<ObjectStream | null>;
  /** Removes an object; removing a missing one is not an error. */
  abstract delete(key: string): Promise<void>;
  abstract urlFor(key: string): string;
  /** A URL that serves the object until `expires` (unix seconds), to whoever holds it. */
  abstract signedUrl(key: string, expires: number): string;

  /** Copies an object to a new key; false when the source does not exist. */
  async copy(from: string, to: string): Promise<StoredObject | null> {
    const source = await this.get(from);
    if (!source) return null;
    return this.put(to, source.body, source.contentType);
  }
}
