export interface StoredObject {
  key: string;
  url: string;
}

/** Where uploaded and generated media live. URLs returned are ours, served back to clients. */
export abstract class Storage {
  abstract put(key: string, body: Buffer, contentType: string): Promise<StoredObject>;
  abstract get(key: string): Promise<{ body: Buffer; contentType: string } | null>;
  abstract delete(key: string): Promise<void>;
  abstract urlFor(key: string): string;
}
