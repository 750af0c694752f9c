import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysController } from './api/api-keys.controller.js';
import { DatabaseApiKeyAuthenticator } from './application/api-key-authenticator.js';
import { ApiKeyRecheckStrategy, ApiKeyStrategy } from './application/api-key-strategy.js';
import { ApiKeysService } from './application/api-keys.service.js';
import { ApiKeyEntity } from './infrastructure/api-key.entity.js';
import { ApiKeysRepository } from './infrastructure/api-keys.repository.js';
import { ApiKeysDataContributor } from './infrastructure/api-keys-data.contributor.js';

/** API keys: management routes for sessions, and the passport strategy the global guard and the socket gateway use for `psk_` keys. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [ApiKeysController],
  providers: [ApiKeysDataContributor, ApiKeysRepository, ApiKeysService, DatabaseApiKeyAuthenticator, ApiKeyStrategy, ApiKeyRecheckStrategy],
})
export class ApiKeysModule {}
