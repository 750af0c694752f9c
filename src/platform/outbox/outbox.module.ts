import { Global, Module } from '@nestjs/common';
import { OutboxDispatcher } from './dispatcher.js';
import { Outbox } from './outbox.js';
import { OutboxStore } from './outbox-store.js';
import { OutboxSubscribers } from './subscribers.js';
import { OutboxEventBodies } from './event-bodies.js';
import { OutboxDataContributor } from './outbox-data.contributor.js';

/** The transactional outbox, available everywhere: `Outbox` records, subscribers register, the dispatcher delivers. */
@Global()
@Module({
  providers: [Outbox, OutboxStore, OutboxSubscribers, OutboxEventBodies, OutboxDispatcher, OutboxDataContributor],
  exports: [Outbox, OutboxSubscribers, OutboxEventBodies],
})
export class OutboxModule {}
