import { Global, Module } from '@nestjs/common';
import { OutboxDispatcher } from './dispatcher.js';
import { Outbox } from './outbox.js';
import { OutboxStore } from './outbox-store.js';
import { OutboxSubscribers } from './subscribers.js';

/** The transactional outbox, available everywhere: `Outbox` records, subscribers register, the dispatcher delivers. */
@Global()
@Module({
  providers: [Outbox, OutboxStore, OutboxSubscribers, OutboxDispatcher],
  exports: [Outbox, OutboxSubscribers],
})
export class OutboxModule {}
