import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../../platform/outbound/index.js';
import { BillingModule } from '../billing/index.js';
import { CharactersModule } from '../characters/index.js';
import { GenerationModule } from '../generation/index.js';
import { MotionTransferController } from './api/motion-transfer.controller.js';
import { MotionInputs } from './application/motion-inputs.js';
import { MotionTransferJob } from './application/motion-transfer.job.js';
import { MotionTransferService } from './application/motion-transfer.service.js';
import { CharacterImages } from './application/ports/character-images.js';
import { ReferenceVideoDownloader } from './application/ports/reference-video-downloader.js';
import { MotionTransferEntity } from './infrastructure/motion-transfer.entity.js';
import { MotionTransferRepository } from './infrastructure/motion-transfer.repository.js';
import { MotionTransferFiles } from './application/motion-transfer-files.js';
import { SafeReferenceVideoDownloader } from './infrastructure/safe-reference-video-downloader.js';
import { FacadeCharacterImages } from './infrastructure/facade-character-images.js';
import { MotionTransferDataContributor } from './infrastructure/motion-transfer-data.contributor.js';

/** Motion transfer: accepted and charged over HTTP, made by the `motion_transfer` job on the cloud video provider. */
@Module({
  imports: [TypeOrmModule.forFeature([MotionTransferEntity]), OutboundModule, BillingModule, CharactersModule, GenerationModule],
  controllers: [MotionTransferController],
  providers: [MotionTransferDataContributor,
    MotionTransferRepository,
    MotionTransferService,
    MotionInputs,
    MotionTransferJob,
    MotionTransferFiles,
    { provide: CharacterImages, useClass: FacadeCharacterImages },
    { provide: ReferenceVideoDownloader, useClass: SafeReferenceVideoDownloader },
  ],
})
export class MotionTransferModule {}
