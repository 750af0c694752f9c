import { randomBytes } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import * as argon2 from 'argon2';

/** argon2id at the OWASP minimum (19 MiB, 2 passes, 1 lane); the parameters travel inside each hash. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummyHash?: Promise<string>;

  /** Made at start-up, so even the first sign-in with an unknown email takes as long as any other. */
  async onModuleInit(): Promise<void> {
    await this.dummy();
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    return argon2.verify(hash, password).catch(() => false);
  }

  /** Spends as long as a real check, so an unknown email cannot be told from a wrong password by timing. */
  async verifyUnknownUser(password: string): Promise<false> {
    await this.verify(await this.dummy(), password);
    return false;
  }

  private dummy(): Promise<string> {
    return (this.dummyHash ??= this.hash(randomBytes(16).toString('hex')));
  }
}
