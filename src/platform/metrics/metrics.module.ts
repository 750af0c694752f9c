import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';
import { QueueBoardController } from './queue-board.controller.js';

/** One `Metrics` per application, for every context to record into; the scrape route and the queue board's session route. */
@Global()
@Module({
  controllers: [MetricsController, QueueBoardController],
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
