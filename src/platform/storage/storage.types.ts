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

/** Where uploaded and generated media live. URLs returned are ours, served back to clients. */
export abstract class Storage {
  abstract put(key: string, body: Buffer, contentType: string): Promise<StoredObject>;
  abstract get(key: string): Promise<{ body: Buffer; contentType: string } | null>;
  /** Streams an object for serving; null when it does not exist. */
  abstract open(key: string): Promise<ObjectStream | null>;
  /** Removes an object; removing a missing one is not an error. */
  abstract delete(key: string): Promise<void>;
  abstract urlFor(key: string): string;

  /** Copies an object to a new key; false when the source does not exist. */
  async copy(from: string, to: string): Promise<StoredObject | null> {
    const source = await this.get(from);
    if (!source) return null;
    return this.put(to, source.body, source.contentType);
  }
}
