import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const EVENT = { id: 'evt_01JD7Q4W3M3K2ZQ6Y4H5R8V9TA', type: 'job.completed', created_at: '2026-11-27T12:59:05.120Z', workspace_id: 'ws_1', data: { job_id: 'job_1', job_type: 'generate_image' } };
const BODY = JSON.stringify(EVENT);

/** The headers a delivery signed with `secrets` (all of them, as during a rotation) carries. */
function signed(secrets: string[], body = BODY, at = new Date()): Record<string, string> {
  const signatures = secrets.map((s) => new Webhook(s).sign(EVENT.id, at, body));
  return { 'webhook-id': EVENT.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatures.join(' ') };
}

describe('verifyWebhook', () => {
  it('answers the event of a delivery signed with the secret, from a string or the raw bytes', () => {
    const key = secret();
    expect(verifyWebhook(key, BODY, signed([key]))).toEqual(EVENT);
    expect(verifyWebhook(key, Buffer.from(BODY), signed([key]))).toEqual(EVENT);
  });

  it('reads the headers from Node (any case, arrays) or a fetch Headers', () => {
    const key = secret();
    const headers = signed([key]);
    const node = { 'Webhook-Id': [headers['webhook-id']], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'], host: 'x' };
    expect(verifyWebhook(key, BODY, node).id).toBe(EVENT.id);
    expect(verifyWebhook(key, BODY, new Headers(headers)).id).toBe(EVENT.id);
  });

  it('refuses a tampered body, another secret, a stale timestamp and missing headers', () => {
    const key = secret();
    const tampered = BODY.replace('job_1', 'job_2');
    expect(() => verifyWebhook(key, tampered, signed([key]))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret(), BODY, signed([key]))).toThrow(WebhookVerificationError);
    const old = new Date(Date.now() - 10 * 60_000);
    expect(() => verifyWebhook(key, BODY, signed([key], BODY, old))).toThrow(/timestamp/i);
    const { 'webhook-signature': _dropped, ...unsigned } = signed([key]);
    expect(() => verifyWebhook(key, BODY, unsigned)).toThrow(new WebhookVerificationError('Missing the webhook-signature header.'));
    expect(() => verifyWebhook([], BODY, signed([key]))).toThrow(WebhookVerificationError);
  });

  it('accepts any of several secrets (a receiver rotating) and either signature of a rotating sender', () => {
    const [previous, next] = [secret(), secret()];
    expect(verifyWebhook([previous, next], BODY, signed([next])).id).toBe(EVENT.id);
    expect(verifyWebhook([previous, next], BODY, signed([previous])).id).toBe(EVENT.id);
    // During the sender's overlap the header holds both signatures: either secret alone verifies it.
    const both = signed([next, previous]);
    expect(verifyWebhook(previous, BODY, both).id).toBe(EVENT.id);
    expect(verifyWebhook(next, BODY, both).id).toBe(EVENT.id);
    expect(() => verifyWebhook([secret(), secret()], BODY, both)).toThrow(WebhookVerificationError);
  });

  it('lets a malformed secret surface as the caller\'s error, not as a bad delivery', () => {
    const error = (() => {
      try {
        return verifyWebhook('whsec_%%%not-base64', BODY, signed([secret()]));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WebhookVerificationError);
  });
});
