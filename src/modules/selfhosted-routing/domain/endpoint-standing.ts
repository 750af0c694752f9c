import type { CircuitState } from './circuit.js';
import type { Health } from './routing-rules.js';

/** Whether an endpoint takes jobs now, from its setting, its last probe and its circuit together. */
export type Availability = 'healthy' | 'degraded' | 'unavailable';

export interface EndpointStanding {
  /** Contract §13's field, never `healthy` while the circuit is not closed. */
  health: Health;
  availability: Availability;
  /** The last probe within the health TTL, as measured (unknown when there is none). */
  probeHealth: Health;
}

/**
 * One reading of an endpoint, so its fields cannot disagree: a probe may pass while the circuit,
 * opened by real jobs failing, still keeps jobs away. `unavailable`: disabled, circuit open, or the
 * probe failed; `degraded`: taking trial requests only (half open) or not probed lately; else
 * `healthy`. `health` says the same in the contract's words.
 */
export function standingOf(status: 'active' | 'disabled', probeHealth: Health, circuit: CircuitState): EndpointStanding {
  const broken = circuit === 'open' || probeHealth === 'unhealthy';
  const health: Health = broken ? 'unhealthy' : circuit === 'closed' && probeHealth === 'healthy' ? 'healthy' : 'unknown';
  const availability: Availability = status === 'disabled' || broken ? 'unavailable' : health === 'healthy' ? 'healthy' : 'degraded';
  return { health, availability, probeHealth };
}
