import { describe, expect, it } from '@jest/globals';
import type { Caller } from '../../core/index.js';
import { InProcessRealtimeBus } from './in-process-bus.js';
import type { RealtimeEvent } from './realtime.types.js';
import type { SocketSession } from './socket-session.js';
import { WorkspaceSockets } from './workspace-sockets.js';

function session(workspaceId: string) {
  const sent: string[] = [];
  const caller = { workspaceId } as Caller;
  return { s: { caller, deliver: (_type: string, text: string) => sent.push(text) } as unknown as SocketSession, sent };
}

const event: RealtimeEvent = { type: 'job.completed', job: { id: 'job_1', status: 'completed' } };

describe('WorkspaceSockets over the in-process bus', () => {
  it('delivers a workspace event to that workspace’s sockets only, until they leave', async () => {
    const sockets = new WorkspaceSockets();
    const bus = new InProcessRealtimeBus();
    await bus.listen((ws, e) => sockets.deliver(ws, e));
    const a1 = session('ws_A');
    const a2 = session('ws_A');
    const b = session('ws_B');
    [a1, a2, b].forEach((x) => sockets.add(x.s));

    await bus.publish('ws_A', event);
    expect(a1.sent).toEqual([JSON.stringify(event)]);
    expect(a2.sent).toEqual([JSON.stringify(event)]);
    expect(b.sent).toEqual([]);

    sockets.remove(a1.s);
    await bus.publish('ws_A', event);
    expect(a1.sent).toHaveLength(1);
    expect(a2.sent).toHaveLength(2);
    expect(sockets.count).toBe(2);
    sockets.remove(a2.s);
    sockets.remove(b.s);
    expect(sockets.count).toBe(0);
    expect(sockets.deliver('ws_A', event)).toBe(0);
  });

  it('ignores a session without a caller', () => {
    const sockets = new WorkspaceSockets();
    sockets.add({ deliver: () => undefined } as unknown as SocketSession);
    expect(sockets.count).toBe(0);
  });
});
