import { Module } from '@nestjs/common';
import { EndpointDisabledNotice } from './application/ports/endpoint-notices.js';
import { WebhookSender } from './application/ports/webhook-sender.js';
import { SocketEndpointDisabledNotice } from './api/endpoint-disabled.notice.js';
import { WebhooksController } from './api/webhooks.controller.js';
import { WebhookDeliveryLoop } from './application/delivery-loop.js';
import { WebhookFanout } from './application/webhook-fanout.js';
import { WebhookMetrics } from './application/webhook-metrics.js';
import { WebhookSecrets } from './application/webhook-secrets.js';
import { WebhooksService } from './application/webhooks.service.js';
import { DeliveryStore } from './infrastructure/delivery-store.js';
import { HttpWebhookSender } from './infrastructure/http-webhook-sender.js';
import { WebhooksDataContributor } from './infrastructure/webhooks-data.contributor.js';
import { WebhooksRepository } from './infrastructure/webhooks.repository.js';

/** Outbound webhooks: endpoint routes, the outbox subscriber that fans events out, and the delivery loop (workers). */
@Module({
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookSecrets,
    WebhookFanout,
    WebhookMetrics,
    WebhookDeliveryLoop,
    DeliveryStore,
    WebhooksDataContributor,
    { provide: WebhookSender, useClass: HttpWebhookSender },
    { provide: EndpointDisabledNotice, useClass: SocketEndpointDisabledNotice },
  ],
})
export class WebhooksModule {}
