import { Module } from '@nestjs/common';
import { CharactersModule } from '../characters/index.js';
import { GenerationModule } from '../generation/index.js';
import { PublishingModule } from '../publishing/index.js';
import { ConversationsController } from './api/conversations.controller.js';
import { PlatformWebhooksController } from './api/platform-webhooks.controller.js';
import { ResponderController } from './api/responder.controller.js';
import { CommentPoller } from './application/comment-poller.js';
import { ConversationEvents } from './application/conversation-events.js';
import { ConversationsService } from './application/conversations.service.js';
import { InboundIntake } from './application/inbound-intake.js';
import { ReplyDrafter } from './application/reply-drafter.js';
import { ReplySender } from './application/reply-sender.js';
import { ResponderService } from './application/responder.service.js';
import { ConversationsRepository } from './infrastructure/conversations.repository.js';
import { EngagementDataContributor } from './infrastructure/engagement-data.contributor.js';
import { ResponderSettingsRepository } from './infrastructure/responder-settings.repository.js';

/**
 * Engagement: a character answers the comments and direct messages its posts draw, within the
 * rules its owner sets. Messages arrive by the platforms' webhooks (Instagram, X) or by polling
 * (YouTube), are drafted into replies by the text generator, and leave through the outbox and the
 * publishing context's adapters, exactly once.
 */
@Module({
  imports: [CharactersModule, GenerationModule, PublishingModule],
  controllers: [ResponderController, ConversationsController, PlatformWebhooksController],
  providers: [
    EngagementDataContributor, ResponderSettingsRepository, ConversationsRepository,
    ResponderService, ConversationsService, InboundIntake, ConversationEvents, ReplyDrafter, ReplySender, CommentPoller,
  ],
  exports: [CommentPoller],
})
export class EngagementModule {}
