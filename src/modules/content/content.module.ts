import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/index.js';
import { CharactersModule } from '../characters/index.js';
import { LoraModule } from '../lora/index.js';
import { GenerationModule } from '../generation/index.js';
import { CharacterContentController } from './api/character-content.controller.js';
import { ContentController } from './api/content.controller.js';
import { ContentVariantsController } from './api/content-variants.controller.js';
import { ContentVideoController } from './api/content-video.controller.js';
import { PublicContentController } from './api/public-content.controller.js';
import { CalendarPosts } from './application/calendar-posts.js';
import { CharacterImages } from './application/character-images.js';
import { ContentEditingService } from './application/content-editing.service.js';
import { ContentRemoval } from './application/content-removal.js';
import { ContentGenerationService } from './application/content-generation.service.js';
import { ContentQueryService } from './application/content-query.service.js';
import { ContentEvents, ContentViews } from './application/content-views.js';
import { ContentEventsPublisher } from './api/content-events.publisher.js';
import { ContentEventBodies } from './api/content-event-bodies.js';
import { ContentFacade } from './application/content.facade.js';
import { GenerationOrders } from './application/generation-orders.js';
import { GenerationSteps } from './application/jobs/generation-steps.js';
import { ItemGeneration } from './application/jobs/item-generation.js';
import { ImageGenerationJob } from './application/jobs/image-generation.job.js';
import { VideoGenerationJob } from './application/jobs/video-generation.job.js';
import { WeekPlanJob } from './application/jobs/week-plan.job.js';
import { MediaStore } from './application/media-store.js';
import { ItemReviews } from './application/item-reviews.js';
import { ContentItemEntity } from './infrastructure/content-item.entity.js';
import { ContentItemRepository } from './infrastructure/content-item.repository.js';
import { StoredCharacterImages } from './infrastructure/stored-character-images.js';
import { ContentDataContributor } from './infrastructure/content-data.contributor.js';

/**
 * Content: items and their state machine, generation jobs (image, week plan, video), the queue
 * and calendar, caption variants, and the review changes moderation drives. Generators come from the generation context.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ContentItemEntity]), GenerationModule, CharactersModule, BillingModule, LoraModule],
  controllers: [
    ContentVideoController,
    ContentVariantsController,
    ContentController,
    CharacterContentController,
    PublicContentController,
  ],
  providers: [ContentDataContributor,
    ContentItemRepository,
    { provide: CharacterImages, useClass: StoredCharacterImages },
    CalendarPosts,
    ContentViews,
    { provide: ContentEvents, useClass: ContentEventsPublisher },
    MediaStore,
    GenerationOrders,
    GenerationSteps,
    ContentGenerationService,
    ContentQueryService,
    ContentEditingService,
    ContentRemoval,
    ItemReviews,
    ContentFacade,
    ItemGeneration,
    ImageGenerationJob,
    VideoGenerationJob,
    WeekPlanJob,
    ContentEventBodies,
  ],
  exports: [ContentFacade],
})
export class ContentModule {}
