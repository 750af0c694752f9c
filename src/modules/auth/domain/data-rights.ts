/** One workspace the account belongs to, as deletion sees it. */
export interface MembershipCount {
  workspaceId: string;
  role: string;
  /** Members of the workspace, the account included. */
  members: number;
  /** Owners of the workspace, the account included when it is one. */
  owners: number;
}

/** What deleting an account does to its workspaces, or the workspace that stops it. */
export type DeletionPlan =
  | { ok: true; deleteWorkspaces: string[]; leaveWorkspaces: string[] }
  | { ok: false; blockedBy: string };

/**
 * A workspace the account is alone in goes with it; one it shares it simply leaves, unless it is
 * that workspace's only owner: then the others would be left without one, so the deletion waits
 * until ownership is transferred or the other members removed.
 */
export function planAccountDeletion(memberships: readonly MembershipCount[]): DeletionPlan {
  const deleteWorkspaces: string[] = [];
  const leaveWorkspaces: string[] = [];
  for (const m of memberships) {
    if (m.members <= 1) deleteWorkspaces.push(m.workspaceId);
    else if (m.role === 'owner' && m.owners <= 1) return { ok: false, blockedBy: m.workspaceId };
    else leaveWorkspaces.push(m.workspaceId);
  }
  return { ok: true, deleteWorkspaces, leaveWorkspaces };
}

/** Exports a workspace may start in any rolling 24 hours. */
export const EXPORTS_PER_DAY = 3;
/** How long a ready export can be downloaded. */
export const EXPORT_TTL_MS = 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** Seconds until another export may start, given the start times of the workspace's exports in the last day; 0 when one may now. */
export function exportRetryAfterSeconds(recentStarts: readonly Date[], now: Date): number {
  const window = recentStarts.filter((t) => now.getTime() - t.getTime() < DAY_MS).sort((a, b) => a.getTime() - b.getTime());
  if (window.length < EXPORTS_PER_DAY) return 0;
  const freedAt = window[window.length - EXPORTS_PER_DAY].getTime() + DAY_MS;
  return Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
}

export type ExportStatus = 'pending' | 'ready' | 'failed' | 'expired';

/** An export's status as the owner sees it now: a ready export past its life reads expired before the sweep marks it. */
export function exportStatusAt(status: ExportStatus, expiresAt: Date | null, now: Date): ExportStatus {
  return status === 'ready' && expiresAt !== null && expiresAt.getTime() <= now.getTime() ? 'expired' : status;
}
