import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/index.js';
import { CharactersController } from './api/characters.controller.js';
import { PublicCharactersController } from './api/public-characters.controller.js';
import { ReferenceImagesController } from './api/reference-images.controller.js';
import { CharacterCloner } from './application/character-cloner.js';
import { CharacterQuota } from './application/character-quota.js';
import { CharactersFacade } from './application/characters.facade.js';
import { CharacterFiles } from './application/character-files.js';
import { CharactersService } from './application/characters.service.js';
import { FaceEmbeddingJob } from './application/jobs/face-embedding.job.js';
import { AppearanceEmbedder } from './application/ports/appearance-embedder.js';
import { ReferenceImagesService } from './application/reference-images.service.js';
import { CharacterEntity } from './infrastructure/character.entity.js';
import { CharacterRepository } from './infrastructure/character.repository.js';
import { HttpAppearanceEmbedder } from './infrastructure/http-appearance-embedder.js';
import { LocalAppearanceEmbedder } from './infrastructure/local-appearance-embedder.js';
import { ReferenceImageEntity } from './infrastructure/reference-image.entity.js';
import { ReferenceImageRepository } from './infrastructure/reference-image.repository.js';
import { CharactersDataContributor } from './infrastructure/characters-data.contributor.js';

@Module({
  imports: [TypeOrmModule.forFeature([CharacterEntity, ReferenceImageEntity])],
  controllers: [CharactersController, ReferenceImagesController, PublicCharactersController],
  providers: [CharactersDataContributor,
    CharacterFiles,
    CharacterRepository,
    ReferenceImageRepository,
    CharacterQuota,
    CharacterCloner,
    CharactersService,
    ReferenceImagesService,
    CharactersFacade,
    FaceEmbeddingJob,
    {
      provide: AppearanceEmbedder,
      inject: [AppConfig],
      useFactory: (config: AppConfig): AppearanceEmbedder =>
        config.embeddingUrl
          ? new HttpAppearanceEmbedder({ url: config.embeddingUrl, apiKey: config.embeddingApiKey })
          : new LocalAppearanceEmbedder(),
    },
  ],
  exports: [CharactersFacade, CharacterFiles],
})
export class CharactersModule {}
