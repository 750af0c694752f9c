import { Module } from '@nestjs/common';
import { ContentModule } from '../content/index.js';
import { ModerationController } from './api/moderation.controller.js';
import { ModerationService } from './application/moderation.service.js';

/** Moderation: review decisions on generated content (approve, reject, per medium) and regeneration. */
@Module({
  imports: [ContentModule],
  controllers: [ModerationController],
  providers: [ModerationService],
})
export class ModerationModule {}
