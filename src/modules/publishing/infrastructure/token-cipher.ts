import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { SealedBox } from '../../../platform/crypto/index.js';

/**
 * Platform tokens at rest: AES-256-GCM with a key derived from TOKEN_ENCRYPTION_KEY, a fresh IV
 * per value, and the row's id as associated data, so a ciphertext copied into another row does
 * not decrypt. Also signs OAuth states with a second derived key.
 */
@Injectable()
export class TokenCipher {
  private readonly box: SealedBox;
  private readonly signingKey: Buffer;

  constructor(config: AppConfig) {
    const master = Buffer.from(config.tokenEncryptionKey, 'utf8');
    this.box = new SealedBox(config.tokenEncryptionKey, 'platform-tokens');
    this.signingKey = Buffer.from(hkdfSync('sha256', master, 'persona-studio', 'oauth-state', 32));
  }

  encrypt(plain: string, boundTo: string): string {
    return this.box.seal(plain, boundTo);
  }

  /** Throws when the value was tampered with, bound to another row, or made with another key. */
  decrypt(sealed: string, boundTo: string): string {
    return this.box.open(sealed, boundTo);
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
