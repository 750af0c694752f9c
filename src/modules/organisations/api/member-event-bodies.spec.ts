import { describe, expect, it } from '@jest/globals';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies } from '../../../platform/outbox/index.js';
import type { MembersService } from '../application/members.service.js';
import type { Member } from '../domain/organisation.js';
import { memberBody } from './dto/organisation.views.js';
import { MemberEventBodies } from './member-event-bodies.js';

const WS = 'ws_1';
const member: Member = { userId: 'user_1', email: 'dana@example.com', displayName: 'Dana', role: 'editor', joinedAt: new Date('2026-11-27T10:00:00Z') };

function setUp() {
  const bodies = new OutboxEventBodies();
  const members = { member: async (ws: string, userId: string) => (ws === WS && userId === member.userId ? member : null) } as unknown as MembersService;
  new MemberEventBodies(bodies, members).onModuleInit();
  return bodies;
}

const added = (userId: string, workspaceId = WS) =>
  ({ id: 'evt_1', type: 'member.added', workspaceId, payload: { userId, role: 'editor' }, occurredAt: new Date() }) as OutboxEvent;

describe('member event bodies', () => {
  it('render an added member as GET /organizations/{id}/members lists it (its builder)', async () => {
    expect(await setUp().render(added('user_1'))).toEqual(memberBody(member));
  });

  it('answer null for an added member who left since, or of another workspace', async () => {
    const bodies = setUp();
    expect(await bodies.render(added('user_2'))).toBeNull();
    expect(await bodies.render(added('user_1', 'ws_2'))).toBeNull();
  });

  it('render a removed member as the list showed them, from the event (the membership is gone)', async () => {
    const removed = {
      id: 'evt_2', type: 'member.removed', workspaceId: WS, occurredAt: new Date(),
      payload: { userId: 'user_9', role: 'viewer', email: 'eli@example.com', displayName: 'Eli', joinedAt: '2026-11-01T08:00:00.000Z' },
    } as OutboxEvent;
    expect(await setUp().render(removed)).toEqual(
      memberBody({ userId: 'user_9', email: 'eli@example.com', displayName: 'Eli', role: 'viewer', joinedAt: new Date('2026-11-01T08:00:00.000Z') }),
    );
  });
});
