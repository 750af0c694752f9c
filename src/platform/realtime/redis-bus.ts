import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RealtimeBus, type RealtimeEvent, type RealtimeListener } from './realtime.types.js';

interface Envelope {
  workspace_id: string;
  event: RealtimeEvent;
}

/**
 * Fan-out through Redis pub/sub: every process publishes on one channel under the Redis prefix;
 * every API process subscribes with its own connection and hands events to its local sockets.
 * Pub/sub is fire-and-forget, which is fine: the job row stays the truth a client can poll.
 */
export class RedisRealtimeBus extends RealtimeBus {
  private readonly logger = new Logger('Realtime');
  private readonly listeners = new Set<RealtimeListener>();
  private subscribed?: Promise<unknown>;
  readonly channel: string;

  constructor(
    private readonly publisherClient: Redis,
    private readonly openSubscriber: () => Redis,
    prefix: string,
  ) {
    super();
    this.channel = `${prefix}:realtime`;
  }

  async publish(workspaceId: string, event: RealtimeEvent): Promise<void> {
    const envelope: Envelope = { workspace_id: workspaceId, event };
    await this.publisherClient.publish(this.channel, JSON.stringify(envelope));
  }

  async listen(listener: RealtimeListener): Promise<void> {
    this.listeners.add(listener);
    this.subscribed ??= this.subscribe();
    await this.subscribed;
  }

  private subscribe(): Promise<unknown> {
    const subscriber = this.openSubscriber();
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.dispatch(message);
    });
    return subscriber.subscribe(this.channel);
  }

  private dispatch(message: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch {
      this.logger.warn({ msg: 'unreadable realtime message dropped' });
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(envelope.workspace_id, envelope.event);
      } catch (err) {
        this.logger.error({ msg: 'realtime listener threw', err: String(err) });
      }
    }
  }
}
