import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/index.js';
import { CharactersModule } from '../characters/index.js';
import { ContentModule } from '../content/index.js';
import { GenerationModule } from '../generation/index.js';
import { VoiceModule } from '../voice/index.js';
import { TalkingHeadController } from './api/talking-head.controller.js';
import { TalkingHeadFiles } from './application/talking-head-files.js';
import { TalkingHeadJob } from './application/talking-head.job.js';
import { TalkingHeadService } from './application/talking-head.service.js';
import { TalkingHeadRepository } from './infrastructure/talking-head.repository.js';
import { TalkingHeadDataContributor } from './infrastructure/talking-head-data.contributor.js';

/** Talking heads (contract §12): accepted and charged over HTTP, made by the `talking_head` job. */
@Module({
  imports: [BillingModule, CharactersModule, ContentModule, GenerationModule, VoiceModule],
  controllers: [TalkingHeadController],
  providers: [TalkingHeadDataContributor, TalkingHeadRepository, TalkingHeadService, TalkingHeadJob, TalkingHeadFiles],
})
export class TalkingHeadModule {}
