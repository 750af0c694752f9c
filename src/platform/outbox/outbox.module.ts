import { Global, Module } from '@nestjs/common';
import { Outbox } from './outbox.js';
import { OutboxDataContributor } from './outbox-data.contributor.js';

/** The transactional outbox, available everywhere. */
@Global()
@Module({
  providers: [Outbox, OutboxDataContributor],
  exports: [Outbox],
})
export class OutboxModule {}
