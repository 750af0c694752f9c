import { Module } from '@nestjs/common';
import { OutboundModule } from '../../platform/outbound/index.js';
import { BillingModule } from '../billing/index.js';
import { CharactersModule } from '../characters/index.js';
import { GenerationModule } from '../generation/index.js';
import { VoiceController } from './api/voice.controller.js';
import { VoiceEventBodies } from './api/voice-event-bodies.js';
import { CloneRetirement } from './application/clone-retirement.js';
import { SampleIntake } from './application/sample-intake.js';
import { SpeechService } from './application/speech.service.js';
import { VoiceFacade } from './application/voice.facade.js';
import { VoiceFiles } from './application/voice-files.js';
import { VoiceJobs } from './application/voice.jobs.js';
import { VoiceService } from './application/voice.service.js';
import { VoiceSettingsResolver } from './application/voice-settings.js';
import { VoiceRepository } from './infrastructure/voice.repository.js';
import { VoiceDataContributor } from './infrastructure/voice-data.contributor.js';

/** Voices (contract §11): the library, a character's settings and clone, speech; others use `VoiceFacade`. */
@Module({
  imports: [OutboundModule, BillingModule, CharactersModule, GenerationModule],
  controllers: [VoiceController],
  providers: [VoiceDataContributor, VoiceRepository, VoiceService, SpeechService, SampleIntake, VoiceSettingsResolver, VoiceJobs, VoiceFiles, VoiceFacade, CloneRetirement, VoiceEventBodies],
  exports: [VoiceFacade],
})
export class VoiceModule {}
