import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies, unlessGone, type EventBody, type EventBodyRenderer } from '../../../platform/outbox/index.js';
import { LoraService } from '../application/lora.service.js';
import { toLoraEnvelope } from './dto/lora.body.js';

/**
 * The body of `lora.ready` and `lora.failed`: the character's LoRA as GET /characters/{id}/lora
 * answers it (its `lora`), read when the event is sent. Null when the character is gone.
 */
@Injectable()
export class LoraEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['lora.ready', 'lora.failed'] as const;

  constructor(
    private readonly bodies: OutboxEventBodies,
    private readonly loras: LoraService,
  ) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    if ((event.type !== 'lora.ready' && event.type !== 'lora.failed') || !event.workspaceId) return null;
    const view = await unlessGone(this.loras.view(event.workspaceId, event.payload.characterId));
    return view ? toLoraEnvelope(view).lora : null;
  }
}
