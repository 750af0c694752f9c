import { describe, expect, it } from '@jest/globals';
import { WEBHOOK_EVENT_TYPES } from './core/index.js';
import { CreditEventBodies } from './modules/billing/api/credit-event-bodies.js';
import { ContentEventBodies } from './modules/content/api/content-event-bodies.js';
import { LoraEventBodies } from './modules/lora/api/lora-event-bodies.js';
import { MemberEventBodies } from './modules/organisations/api/member-event-bodies.js';
import { PostEventBodies } from './modules/publishing/api/post-event-bodies.js';
import { VoiceEventBodies } from './modules/voice/api/voice-event-bodies.js';
import { OutboxEventBodies } from './platform/outbox/index.js';
import { JobEventBodies } from './platform/queue/job-event-bodies.js';

describe('webhook event bodies', () => {
  it('every webhook event type has its renderer, and only one (the registry refuses a second at boot)', () => {
    const bodies = new OutboxEventBodies();
    const none = {} as never;
    for (const renderer of [
      new JobEventBodies(bodies, none, none),
      new ContentEventBodies(bodies, none, none),
      new PostEventBodies(bodies, none),
      new LoraEventBodies(bodies, none),
      new VoiceEventBodies(bodies, none),
      new CreditEventBodies(bodies),
      new MemberEventBodies(bodies, none),
    ]) renderer.onModuleInit();
    expect(WEBHOOK_EVENT_TYPES.filter((type) => !bodies.has(type))).toEqual([]);
  });
});
