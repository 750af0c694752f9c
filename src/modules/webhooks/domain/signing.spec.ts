import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { activeSecrets, deliveryHeaders } from './signing.js';
import { newSigningSecret } from './webhook-rules.js';

const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', data: { endpoint_id: 'whe_1' } });

describe('signing deliveries (Standard Webhooks)', () => {
  it('signs so that the standardwebhooks package verifies the body, and nothing else', () => {
    const secret = newSigningSecret();
    const at = new Date();
    const headers = deliveryHeaders([secret], 'evt_1', at, body);
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'PersonaStudio-Webhooks/1', 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)) });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('whe_1', 'whe_2'), headers)).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
  });

  it('signs with both secrets during a rotation, new first, each verifying on its own', () => {
    const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
    const now = new Date();
    const secrets = activeSecrets({ current: newSecret, previous: oldSecret, previousExpiresAt: new Date(now.getTime() + 60_000) }, now);
    expect(secrets).toEqual([newSecret, oldSecret]);
    const headers = deliveryHeaders(secrets, 'evt_1', now, body);
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(new Webhook(newSecret).sign('evt_1', now, body));
    expect(new Webhook(newSecret).verify(body, headers)).toBeTruthy();
    expect(new Webhook(oldSecret).verify(body, headers)).toBeTruthy();
  });

  it('drops the previous secret once its overlap ended', () => {
    const now = new Date();
    expect(activeSecrets({ current: 'whsec_new', previous: 'whsec_old', previousExpiresAt: now }, now)).toEqual(['whsec_new']);
    expect(activeSecrets({ current: 'whsec_new', previous: null, previousExpiresAt: null }, now)).toEqual(['whsec_new']);
  });
});
