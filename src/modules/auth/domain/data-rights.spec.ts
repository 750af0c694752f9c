import { EXPORTS_PER_DAY, exportRetryAfterSeconds, exportStatusAt, planAccountDeletion } from './data-rights.js';

describe('planAccountDeletion', () => {
  it('deletes a workspace the account is alone in', () => {
    expect(planAccountDeletion([{ workspaceId: 'ws_a', role: 'owner', members: 1, owners: 1 }])).toEqual({ ok: true, deleteWorkspaces: ['ws_a'], leaveWorkspaces: [] });
  });

  it('refuses while the account is the only owner of a workspace with other members', () => {
    const plan = planAccountDeletion([
      { workspaceId: 'ws_a', role: 'owner', members: 1, owners: 1 },
      { workspaceId: 'ws_b', role: 'owner', members: 3, owners: 1 },
    ]);
    expect(plan).toEqual({ ok: false, blockedBy: 'ws_b' });
  });

  it('leaves a shared workspace it is a member of, or co-owns', () => {
    const plan = planAccountDeletion([
      { workspaceId: 'ws_a', role: 'owner', members: 1, owners: 1 },
      { workspaceId: 'ws_b', role: 'editor', members: 2, owners: 1 },
      { workspaceId: 'ws_c', role: 'owner', members: 2, owners: 2 },
    ]);
    expect(plan).toEqual({ ok: true, deleteWorkspaces: ['ws_a'], leaveWorkspaces: ['ws_b', 'ws_c'] });
  });
});

describe('exportRetryAfterSeconds', () => {
  const now = new Date('2026-01-02T12:00:00Z');
  const ago = (hours: number) => new Date(now.getTime() - hours * 3600_000);

  it('allows up to the daily number', () => {
    expect(exportRetryAfterSeconds([ago(1), ago(2)], now)).toBe(0);
  });

  it('refuses the next one until the oldest in the window is a day old', () => {
    const starts = [ago(23), ago(2), ago(1)];
    expect(starts).toHaveLength(EXPORTS_PER_DAY);
    expect(exportRetryAfterSeconds(starts, now)).toBe(3600);
  });

  it('ignores starts older than a day', () => {
    expect(exportRetryAfterSeconds([ago(30), ago(2), ago(1)], now)).toBe(0);
  });
});

describe('exportStatusAt', () => {
  const now = new Date('2026-01-02T12:00:00Z');
  it('reads a ready export past its life as expired', () => {
    expect(exportStatusAt('ready', new Date(now.getTime() - 1), now)).toBe('expired');
    expect(exportStatusAt('ready', new Date(now.getTime() + 1000), now)).toBe('ready');
    expect(exportStatusAt('pending', null, now)).toBe('pending');
  });
});
