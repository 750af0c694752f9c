import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AppConfig, ConfigModule } from './config/index.js';
import type { ProcessRole } from './core/index.js';
import { JOB_TYPES } from './job-types.js';
import { AccessGuard } from './platform/auth/access.guard.js';
import { DatabaseModule } from './platform/database/index.js';
import { DataRightsModule } from './platform/data-rights/index.js';
import { HealthModule } from './platform/health/health.module.js';
import { IdempotencyModule } from './platform/idempotency/index.js';
import { LifecycleModule } from './platform/lifecycle/index.js';
import { MetricsModule } from './platform/metrics/index.js';
import { OutboundModule } from './platform/outbound/index.js';
import { OutboxModule } from './platform/outbox/index.js';
import { MediaModule } from './platform/media/index.js';
import { QueueModule } from './platform/queue/queue.module.js';
import { RateLimitModule } from './platform/rate-limit/rate-limit.module.js';
import { RealtimeModule } from './platform/realtime/realtime.module.js';
import { RedisModule } from './platform/redis/redis.module.js';
import { StorageModule } from './platform/storage/storage.module.js';
import { AdminModule } from './modules/admin/admin.module.js';
import { AnalyticsModule } from './modules/analytics/index.js';
import { AuditModule } from './modules/audit/index.js';
import { ApiKeysModule } from './modules/api-keys/api-keys.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { BillingModule } from './modules/billing/billing.module.js';
import { CharactersModule } from './modules/characters/characters.module.js';
import { ContentModule } from './modules/content/content.module.js';
import { LoraModule } from './modules/lora/index.js';
import { MotionTransferModule } from './modules/motion-transfer/index.js';
import { MonetizationModule } from './modules/monetization/index.js';
import { McpModule } from './modules/mcp/index.js';
import { TalkingHeadModule } from './modules/talking-head/index.js';
import { VoiceModule } from './modules/voice/index.js';
import { MarketplaceModule } from './modules/marketplace/index.js';
import { ModerationModule } from './modules/moderation/index.js';
import { NotificationsModule } from './modules/notifications/index.js';
import { BrandingModule, OrganisationsModule } from './modules/organisations/index.js';
import { PublishingModule } from './modules/publishing/index.js';
import { SelfHostedRoutingModule } from './modules/selfhosted-routing/index.js';
import { WebhooksModule } from './modules/webhooks/index.js';
import { EngagementModule } from './modules/engagement/index.js';

/** The whole service. The API and the worker are the same modules; `role` decides who consumes jobs. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, role: ProcessRole): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LifecycleModule,
        MetricsModule,
        DatabaseModule,
        RedisModule,
        RateLimitModule,
        QueueModule.forRoot(role, JOB_TYPES),
        RealtimeModule.forRoot(role),
        StorageModule,
        OutboundModule,
        OutboxModule,
        DataRightsModule,
        MediaModule,
        IdempotencyModule,
        HealthModule,
        AuditModule,
        AuthModule,
        OrganisationsModule,
        ApiKeysModule,
        BillingModule,
        CharactersModule,
        LoraModule,
        ContentModule,
        ModerationModule,
        MotionTransferModule,
        VoiceModule,
        TalkingHeadModule,
        MarketplaceModule,
        PublishingModule,
        MonetizationModule,
        AnalyticsModule,
        SelfHostedRoutingModule,
        BrandingModule,
        NotificationsModule,
        WebhooksModule,
        EngagementModule,
        AdminModule,
        McpModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: AccessGuard }],
    };
  }
}
