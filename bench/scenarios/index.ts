import type { Scenario } from '../lib/scenario.js';
import { analytics } from './analytics.js';
import { billing } from './billing.js';
import { content } from './content.js';
import { foundation } from './foundation.js';
import { lora } from './lora.js';
import { marketplace } from './marketplace.js';
import { monetization } from './monetization.js';
import { publishing } from './publishing.js';
import { routing } from './routing.js';
import { voice } from './voice.js';
import { webhooks } from './webhooks.js';

/** Every benchmark, in the order `npm run bench` runs them. Add new scenarios here. */
export const SCENARIOS: Scenario[] = [foundation, content, marketplace, publishing, lora, voice, routing, analytics, billing, webhooks, monetization];
