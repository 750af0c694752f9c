import type { Scenario } from '../lib/scenario.js';
import { foundation } from './foundation.js';

/** Every benchmark, in the order `npm run bench` runs them. Add new scenarios here. */
export const SCENARIOS: Scenario[] = [foundation];
