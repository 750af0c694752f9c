import type { Measurement } from './load.js';
import type { BenchSettings } from './settings.js';
import type { Target } from './report.js';

/** One benchmark: it builds its own backing and servers, measures, and judges its targets. */
export interface Scenario {
  name: string;
  description: string;
  run(settings: BenchSettings): Promise<ScenarioResult>;
}

export interface ScenarioResult {
  measurements: Measurement[];
  targets: Target[];
  /** A scenario's own table, printed after the measurements. */
  summary?: string;
}
