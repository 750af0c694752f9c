import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyAuthenticator } from '../../platform/auth/index.js';
import { ApiKeysController } from './api/api-keys.controller.js';
import { DatabaseApiKeyAuthenticator } from './application/api-key-authenticator.js';
import { ApiKeysService } from './application/api-keys.service.js';
import { ApiKeyEntity } from './infrastructure/api-key.entity.js';
import { ApiKeysRepository } from './infrastructure/api-keys.repository.js';

/** API keys: management routes for sessions, and the authenticator the global guard uses for `psk_` keys. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService, { provide: ApiKeyAuthenticator, useClass: DatabaseApiKeyAuthenticator }],
  exports: [ApiKeyAuthenticator],
})
export class ApiKeysModule {}
