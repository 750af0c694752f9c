import { Module } from '@nestjs/common';
import { SessionAuthenticator } from '../../platform/auth/index.js';

class NoSessions extends SessionAuthenticator {
  async authenticate() {
    return null;
  }
}

@Module({ providers: [{ provide: SessionAuthenticator, useClass: NoSessions }], exports: [SessionAuthenticator] })
export class AuthModule {}
