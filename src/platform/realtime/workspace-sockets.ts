import type { RealtimeEvent } from './realtime.types.js';
import type { SocketSession } from './socket-session.js';

/**
 * This process's authenticated sockets, by workspace: an event goes to its workspace's sockets only,
 * and of those to the ones whose credential may read it (an API key's scopes).
 */
export class WorkspaceSockets {
  private readonly byWorkspace = new Map<string, Set<SocketSession>>();

  add(session: SocketSession): void {
    const workspaceId = session.caller?.workspaceId;
    if (!workspaceId) return;
    let set = this.byWorkspace.get(workspaceId);
    if (!set) this.byWorkspace.set(workspaceId, (set = new Set()));
    set.add(session);
  }

  remove(session: SocketSession): void {
    const workspaceId = session.caller?.workspaceId;
    const set = workspaceId ? this.byWorkspace.get(workspaceId) : undefined;
    if (!set) return;
    set.delete(session);
    if (set.size === 0) this.byWorkspace.delete(workspaceId!);
  }

  deliver(workspaceId: string, event: RealtimeEvent): number {
    const set = this.byWorkspace.get(workspaceId);
    if (!set) return 0;
    const text = JSON.stringify(event);
    for (const session of set) session.deliver(event.type, text);
    return set.size;
  }

  get count(): number {
    let n = 0;
    for (const set of this.byWorkspace.values()) n += set.size;
    return n;
  }
}
