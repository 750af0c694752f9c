import { Global, Module } from '@nestjs/common';
import { Outbox } from './outbox.js';

/** The transactional outbox, available everywhere. */
@Global()
@Module({
  providers: [Outbox],
  exports: [Outbox],
})
export class OutboxModule {}
