import { Logger } from '@nestjs/common';
import { RealtimeBus, type RealtimeEvent, type RealtimeListener } from './realtime.types.js';

/** Fan-out without Redis: events reach only the sockets of this process. */
export class InProcessRealtimeBus extends RealtimeBus {
  private readonly logger = new Logger('Realtime');
  private readonly listeners = new Set<RealtimeListener>();

  async publish(workspaceId: string, event: RealtimeEvent): Promise<void> {
    for (const listener of this.listeners) {
      try {
        listener(workspaceId, event);
      } catch (err) {
        this.logger.error({ msg: 'realtime listener threw', err: String(err) });
      }
    }
  }

  async listen(listener: RealtimeListener): Promise<void> {
    this.listeners.add(listener);
  }
}
