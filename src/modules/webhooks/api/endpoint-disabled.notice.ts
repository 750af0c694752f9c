import { Injectable } from '@nestjs/common';
import { RealtimePublisher } from '../../../platform/realtime/index.js';
import { EndpointDisabledNotice } from '../application/ports/endpoint-notices.js';
import type { EndpointView } from '../application/webhook.views.js';
import { toEndpointBody } from './dto/webhook.body.js';

/** The `webhook.endpoint_disabled` socket event, with the endpoint as GET answers it. Best-effort, as every socket event. */
@Injectable()
export class SocketEndpointDisabledNotice extends EndpointDisabledNotice {
  constructor(private readonly publisher: RealtimePublisher) {
    super();
  }

  async publish(endpoint: EndpointView): Promise<void> {
    await this.publisher.publish(endpoint.workspaceId, { type: 'webhook.endpoint_disabled', endpoint: toEndpointBody(endpoint) as unknown as Record<string, unknown> });
  }
}
