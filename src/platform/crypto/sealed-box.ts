import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Secrets at rest: AES-256-GCM with a key derived (HKDF) from a master key for one purpose, a
 * fresh IV per value, and the owning row's id as associated data, so a ciphertext copied into
 * another row does not decrypt. Sealed values read `v1.<iv>.<tag>.<body>`, base64url.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(masterKey: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'utf8'), 'persona-studio', purpose, 32));
  }

  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Throws when the value was tampered with, bound to another row, or made with another key. */
  open(sealed: string, boundTo: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('Unreadable sealed value.');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
