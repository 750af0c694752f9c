import { Module } from '@nestjs/common';
import { ApiKeyAuthenticator } from '../../platform/auth/index.js';

class NoKeys extends ApiKeyAuthenticator {
  async authenticate() {
    return null;
  }
}

@Module({ providers: [{ provide: ApiKeyAuthenticator, useClass: NoKeys }], exports: [ApiKeyAuthenticator] })
export class ApiKeysModule {}
