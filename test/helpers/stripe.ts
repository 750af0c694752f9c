import { PRICE_ENV } from '../../src/modules/billing/billing.settings.js';
import type { FakePriceItem, FakePriceSpec, FakeStripe } from '../fakes/stripe-server.js';

/** The secret key tests give the fake and the server alike. */
export const STRIPE_TEST_KEY = 'sk_test_persona_studio_fake_key';

/** The webhook signing secret tests give the fake and the server alike. */
export const STRIPE_TEST_WEBHOOK_SECRET = 'whsec_persona_studio_fake_signing_secret';

/** Default test prices: Pro $29/month, Agency $99/month, packs 100 = $9, 250 = $20, 500 = $35, 1000 = $60 (USD). */
export const TEST_PRICES: Readonly<Record<FakePriceItem, FakePriceSpec>> = {
  pro: { id: 'price_test_pro_monthly', unitAmount: 2900, currency: 'usd', interval: 'month' },
  agency: { id: 'price_test_agency_monthly', unitAmount: 9900, currency: 'usd', interval: 'month' },
  pack_100: { id: 'price_test_pack_100', unitAmount: 900, currency: 'usd' },
  pack_250: { id: 'price_test_pack_250', unitAmount: 2000, currency: 'usd' },
  pack_500: { id: 'price_test_pack_500', unitAmount: 3500, currency: 'usd' },
  pack_1000: { id: 'price_test_pack_1000', unitAmount: 6000, currency: 'usd' },
};

/**
 * The environment a test server needs to bill through the fake: its key, the webhook secret, the
 * fake's address as the API base, and the six price ids (`prices`, default the test prices, must
 * be the ones the fake was started with).
 */
export function stripeEnv(
  fake: Pick<FakeStripe, 'url'>,
  webhookSecret: string = STRIPE_TEST_WEBHOOK_SECRET,
  opts: { secretKey?: string; prices?: Readonly<Record<FakePriceItem, FakePriceSpec>> } = {},
): Record<string, string> {
  const env: Record<string, string> = {
    STRIPE_SECRET_KEY: opts.secretKey ?? STRIPE_TEST_KEY,
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    STRIPE_API_BASE: fake.url,
  };
  const prices = opts.prices ?? TEST_PRICES;
  for (const [item, name] of Object.entries(PRICE_ENV) as Array<[FakePriceItem, string]>) env[name] = prices[item].id;
  return env;
}
