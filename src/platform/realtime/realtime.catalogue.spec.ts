import { describe, expect, it } from '@jest/globals';
import { EVENT_READ_SCOPES } from './event-access.js';
import { REALTIME_EVENT_TYPES, REALTIME_EVENTS, type RealtimeEvent } from './realtime.catalogue.js';
import { RealtimePublisher } from './realtime.types.js';

class Recorder extends RealtimePublisher {
  readonly events: RealtimeEvent[] = [];
  async publish(_workspaceId: string, event: RealtimeEvent): Promise<void> {
    this.events.push(event);
  }
}

describe('the realtime event catalogue', () => {
  it('is what publish accepts: an event outside it, or with another payload field, does not type-check', async () => {
    const bus = new Recorder();
    await bus.publish('ws_1', { type: 'job.progress', job: {} });
    await bus.publish('ws_1', { type: 'post.updated', scheduled_post: {} });
    // Checked by `npm run typecheck` (tsc fails on an unused @ts-expect-error): the catalogue is the only way in.
    // @ts-expect-error: not in the catalogue
    await bus.publish('ws_1', { type: 'job.cancelled', job: {} });
    // @ts-expect-error: content.updated carries `item`, not `job`
    await bus.publish('ws_1', { type: 'content.updated', job: {} });
    expect(bus.events.map((e) => e.type)).toEqual(['job.progress', 'post.updated', 'job.cancelled', 'content.updated']);
  });

  it('names every event once, each with the scopes that let an API key read it', () => {
    expect(REALTIME_EVENT_TYPES).toEqual(Object.keys(REALTIME_EVENTS));
    expect(Object.keys(EVENT_READ_SCOPES).sort()).toEqual([...REALTIME_EVENT_TYPES].sort());
    // Only events about session-managed resources (webhook endpoints, conversations) reach no API key.
    const sessionOnly = ['webhook.endpoint_disabled', 'conversation.message', 'conversation.reply_pending'];
    for (const type of REALTIME_EVENT_TYPES) expect(EVENT_READ_SCOPES[type].length > 0 || sessionOnly.includes(type)).toBe(true);
  });
});
