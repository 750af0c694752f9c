import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { NewOutboxEvent, WorkspaceRole } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { Invitation } from '../domain/invitation.js';
import type { Member } from '../domain/organisation.js';
import { InvitationsService } from './invitations.service.js';
import { MembersService } from './members.service.js';

/** member.added and member.removed against an in-memory workspace: one transaction marker, an outbox that records. */
const WS = 'ws_1';
const INV = 'inv_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const joined = new Date('2026-11-01T08:00:00Z');

function world() {
  const members = new Map<string, Member>([
    ['user_owner', { userId: 'user_owner', email: 'olga@example.com', displayName: 'Olga', role: 'owner', joinedAt: joined }],
    ['user_ed', { userId: 'user_ed', email: 'ed@example.com', displayName: 'Ed', role: 'editor', joinedAt: joined }],
  ]);
  const invitation: Invitation = {
    id: INV, workspaceId: WS, email: 'dana@example.com', role: 'viewer', invitedBy: 'user_owner', expiresAt: new Date(Date.now() + 3600_000),
    acceptedAt: null, revokedAt: null, declinedAt: null, createdAt: new Date(),
  };
  const users = new Map([['user_dana', { id: 'user_dana', email: 'dana@example.com' }]]);
  const tx = { in: 'the change transaction' } as unknown as Tx;
  const ds = { manager: {}, transaction: (work: (t: Tx) => Promise<unknown>) => work(tx) } as unknown as DataSource;
  const repo = {
    lockMemberships: async () => new Map([...members.values()].map((m) => [m.userId, m.role])),
    findMember: async (_ws: string, userId: string) => members.get(userId) ?? null,
    deleteMembership: async (_tx: Tx, _ws: string, userId: string) => void members.delete(userId),
    findUser: async (id: string) => users.get(id) ?? null,
    findInvitation: async () => ({ ...invitation }),
    markAccepted: async () => (invitation.acceptedAt ? null : ((invitation.acceptedAt = new Date()), { ...invitation })),
    insertMembership: async (_tx: Tx, _ws: string, userId: string, role: WorkspaceRole) => {
      if (members.has(userId)) return false;
      members.set(userId, { userId, email: users.get(userId)!.email, displayName: 'Dana', role, joinedAt: new Date() });
      return true;
    },
    findForMember: async () => ({ id: WS }),
  };
  const recorded: Array<{ tx: Tx; event: NewOutboxEvent }> = [];
  const outbox = { record: async (t: Tx, event: NewOutboxEvent) => void recorded.push({ tx: t, event }) } as unknown as Outbox;
  const audit = { record: async () => undefined };
  const limiter = { bumpAccessStamp: async () => undefined };
  const access = { require: async () => ({ id: WS, role: 'owner' }) };
  const membersService = new MembersService(ds, repo as never, access as never, audit as never, limiter as never, {} as never, outbox);
  const invitations = new InvitationsService(ds, repo as never, audit as never, limiter as never, outbox);
  return { membersService, invitations, recorded, tx, members, invitation };
}

describe('member.added', () => {
  it('is recorded in the transaction that accepts the invitation, naming the new member and role', async () => {
    const w = world();
    await w.invitations.accept(INV, 'user_dana');
    expect(w.recorded).toEqual([{ tx: w.tx, event: { type: 'member.added', workspaceId: WS, payload: { userId: 'user_dana', role: 'viewer' } } }]);
  });

  it('is not recorded for an invitation answered already, nor for a user who was a member already', async () => {
    const w = world();
    await w.invitations.accept(INV, 'user_dana');
    await expect(w.invitations.accept(INV, 'user_dana')).rejects.toMatchObject({ code: 'not_found' });
    expect(w.recorded).toHaveLength(1);
    const again = world();
    again.members.set('user_dana', { userId: 'user_dana', email: 'dana@example.com', displayName: 'Dana', role: 'editor', joinedAt: joined });
    await again.invitations.accept(INV, 'user_dana');
    expect(again.recorded).toEqual([]);
  });
});

describe('member.removed', () => {
  it('is recorded in the removal\'s transaction with the member as they were, whether removed or leaving', async () => {
    const w = world();
    await w.membersService.remove(WS, 'user_owner', 'user_ed');
    expect(w.recorded).toEqual([{
      tx: w.tx,
      event: { type: 'member.removed', workspaceId: WS, payload: { userId: 'user_ed', role: 'editor', email: 'ed@example.com', displayName: 'Ed', joinedAt: joined.toISOString() } },
    }]);
 
    const leaving = world();
    await leaving.membersService.remove(WS, 'user_ed', 'user_ed');
    expect(leaving.recorded.map((r) => [r.tx, r.event.type, (r.event.payload as { userId: string }).userId])).toEqual([[leaving.tx, 'member.removed', 'user_ed']]);
  });

  it('is not recorded when the removal is refused (the last owner) or the member is unknown', async () => {
    const w = world();
    await expect(w.membersService.remove(WS, 'user_owner', 'user_owner')).rejects.toMatchObject({ code: 'last_owner' });
    await expect(w.membersService.remove(WS, 'user_owner', 'user_nobody')).rejects.toMatchObject({ code: 'not_found' });
    expect(w.recorded).toEqual([]);
  });
});
