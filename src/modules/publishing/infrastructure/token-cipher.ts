import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';

const VERSION = 'v1';

/**
 * Platform tokens at rest: AES-256-GCM with a key derived from TOKEN_ENCRYPTION_KEY, a fresh IV
 * per value, and the row's id as associated data, so a ciphertext copied into another row does
 * not decrypt. Also signs OAuth states with a second derived key.
 */
@Injectable()
export class TokenCipher {
  private readonly encryptionKey: Buffer;
  private readonly signingKey: Buffer;

  constructor(config: AppConfig) {
    const master = Buffer.from(config.tokenEncryptionKey, 'utf8');
    this.encryptionKey = Buffer.from(hkdfSync('sha256', master, 'persona-studio', 'platform-tokens', 32));
    this.signingKey = Buffer.from(hkdfSync('sha256', master, 'persona-studio', 'oauth-state', 32));
  }

  encrypt(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Throws when the value was tampered with, bound to another row, or made with another key. */
  decrypt(sealed: string, boundTo: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('Unreadable sealed token.');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  sign(value: string): string {
    return `${value}.${createHmac('sha256', this.signingKey).update(value).digest('base64url')}`;
  }

  /** The signed value, or null when the signature does not match. */
  verify(signed: string): string | null {
    const dot = signed.lastIndexOf('.');
    if (dot <= 0) return null;
    const value = signed.slice(0, dot);
    const given = Buffer.from(signed.slice(dot + 1));
    const expected = Buffer.from(createHmac('sha256', this.signingKey).update(value).digest('base64url'));
    return given.length === expected.length && timingSafeEqual(given, expected) ? value : null;
  }
}
