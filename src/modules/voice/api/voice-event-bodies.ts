import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies, unlessGone, type EventBody, type EventBodyRenderer } from '../../../platform/outbox/index.js';
import { VoiceService } from '../application/voice.service.js';
import { toVoiceBody } from './dto/voice.body.js';

/**
 * The body of `voice.ready`: the character's voice as GET /characters/{id}/voice answers it (its
 * `voice`), read when the event is sent. Null when the character is gone.
 */
@Injectable()
export class VoiceEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['voice.ready'] as const;

  constructor(
    private readonly bodies: OutboxEventBodies,
    private readonly voices: VoiceService,
  ) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    if (event.type !== 'voice.ready' || !event.workspaceId) return null;
    const view = await unlessGone(this.voices.view(event.workspaceId, event.payload.characterId));
    return view ? toVoiceBody(view) : null;
  }
}
