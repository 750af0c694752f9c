export { Outbox } from './outbox.js';
export { OutboxModule } from './outbox.module.js';
