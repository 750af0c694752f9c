import type { RealtimeEvent } from './realtime.catalogue.js';

export type { RealtimeEvent, RealtimeEventType } from './realtime.catalogue.js';

/** Publishes an event to every socket of a workspace, on whichever instance it is connected. */
export abstract class RealtimePublisher {
  abstract publish(workspaceId: string, event: RealtimeEvent): Promise<void>;
}

export type RealtimeListener = (workspaceId: string, event: RealtimeEvent) => void;

/**
 * The fan-out behind the publisher: what one process publishes reaches the listeners of every
 * process that listens (only API processes do; they hold the sockets).
 */
export abstract class RealtimeBus extends RealtimePublisher {
  abstract listen(listener: RealtimeListener): Promise<void>;
}
