import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Metrics } from '../../../platform/metrics/index.js';
import { RouterState } from './router-state.js';
import { RoutingDirectory } from './routing-directory.js';

/** Before each scrape: every endpoint's circuit and load, as every process shares them. */
@Injectable()
export class RoutingGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly directory: RoutingDirectory,
    private readonly state: RouterState,
  ) {}

  onModuleInit(): void {
    this.metrics.collectOnScrape(async () => {
      const { entries } = await this.directory.current();
      const runtime = await this.state.runtime(entries.map((e) => e.endpoint.id), Date.now());
      for (const [id, rt] of runtime) {
        this.metrics.circuitState(id, rt.circuit.state);
        this.metrics.selfhostedLoad(id, rt.load);
      }
    });
  }
}
