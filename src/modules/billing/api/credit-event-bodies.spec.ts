import { describe, expect, it } from '@jest/globals';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies } from '../../../platform/outbox/index.js';
import { CreditEventBodies } from './credit-event-bodies.js';

describe('credits.low body', () => {
  it('is the alert as raised, in the shape of the socket event and CreditsLowBody (snake_case, every field)', async () => {
    const bodies = new OutboxEventBodies();
    new CreditEventBodies(bodies).onModuleInit();
    const event = {
      id: 'evt_1', type: 'credits.low', workspaceId: 'ws_1', occurredAt: new Date(),
      payload: { threshold: 10, remaining: 90, granted: 1000, balance: 140, resetsAt: '2026-12-01T00:00:00.000Z' },
    } as OutboxEvent;
    expect(await bodies.render(event)).toEqual({ threshold: 10, remaining: 90, granted: 1000, balance: 140, resets_at: '2026-12-01T00:00:00.000Z' });
    expect(bodies.has('credits.low')).toBe(true);
  });
});
