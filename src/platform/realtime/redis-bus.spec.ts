import { beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { RealtimeEvent } from './realtime.types.js';
import { RedisRealtimeBus } from './redis-bus.js';

/** One fake Redis server: PUBLISH reaches every fake connection subscribed to the channel. */
class FakeRedisServer {
  readonly subscribers: FakeConnection[] = [];
  connection(): FakeConnection {
    return new FakeConnection(this);
  }
}

class FakeConnection extends EventEmitter {
  readonly channels = new Set<string>();
  constructor(private readonly server: FakeRedisServer) {
    super();
  }
  async publish(channel: string, message: string): Promise<number> {
    const targets = this.server.subscribers.filter((s) => s.channels.has(channel));
    targets.forEach((s) => s.emit('message', channel, message));
    return targets.length;
  }
  async subscribe(channel: string): Promise<number> {
    this.channels.add(channel);
    this.server.subscribers.push(this);
    return this.channels.size;
  }
}

const event: RealtimeEvent = { type: 'job.progress', job: { id: 'job_1', progress: 50 } };

describe('RedisRealtimeBus', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('carries events from a publishing process to every listening process, on the prefixed channel', async () => {
    const server = new FakeRedisServer();
    let subscriberConnections = 0;
    const bus = (prefix: string) =>
      new RedisRealtimeBus(server.connection() as unknown as Redis, () => {
        subscriberConnections += 1;
        return server.connection() as unknown as Redis;
      }, prefix);
    const worker = bus('ps');
    const apiA = bus('ps');
    const apiB = bus('ps');
    const otherDeployment = bus('other');
    const got: Record<string, Array<[string, RealtimeEvent]>> = { a: [], b: [], other: [] };
    await apiA.listen((ws, e) => got.a.push([ws, e]));
    await apiA.listen((ws, e) => got.a.push([ws, e]));
    await apiB.listen((ws, e) => got.b.push([ws, e]));
    await otherDeployment.listen((ws, e) => got.other.push([ws, e]));

    await worker.publish('ws_A', event);
    expect(apiA.channel).toBe('ps:realtime');
    expect(got.a).toEqual([['ws_A', event], ['ws_A', event]]);
    expect(got.b).toEqual([['ws_A', event]]);
    expect(got.other).toEqual([]);
    // One subscriber connection per listening process, however many listeners; none for the worker.
    expect(subscriberConnections).toBe(3);
  });

  it('drops an unreadable message instead of throwing', async () => {
    const server = new FakeRedisServer();
    const bus = new RedisRealtimeBus(server.connection() as unknown as Redis, () => server.connection() as unknown as Redis, 'ps');
    const got: string[] = [];
    await bus.listen((ws) => got.push(ws));
    await server.connection().publish('ps:realtime', '{not json');
    await bus.publish('ws_B', event);
    expect(got).toEqual(['ws_B']);
  });
});
