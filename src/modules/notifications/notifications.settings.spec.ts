import { describe, expect, it } from '@jest/globals';
import { DEFAULT_MAIL_FROM, parseNotificationsSettings } from './notifications.settings.js';

describe('notifications settings', () => {
  it('defaults to the offline mailer and the product sender', () => {
    expect(parseNotificationsSettings({})).toEqual({ smtpUrl: undefined, mailFrom: DEFAULT_MAIL_FROM });
    expect(parseNotificationsSettings({ SMTP_URL: '  ', MAIL_FROM: '' })).toEqual({ smtpUrl: undefined, mailFrom: DEFAULT_MAIL_FROM });
  });

  it('accepts smtp and smtps URLs and named or bare senders', () => {
    expect(parseNotificationsSettings({ SMTP_URL: 'smtp://u:p@mail.example.com:587' }).smtpUrl).toBe('smtp://u:p@mail.example.com:587');
    expect(parseNotificationsSettings({ SMTP_URL: 'smtps://mail.example.com' }).smtpUrl).toBe('smtps://mail.example.com');
    expect(parseNotificationsSettings({ MAIL_FROM: 'Acme <hi@acme.test>' }).mailFrom).toBe('Acme <hi@acme.test>');
    expect(parseNotificationsSettings({ MAIL_FROM: 'hi@acme.test' }).mailFrom).toBe('hi@acme.test');
  });

  it('refuses other schemes, non-URLs and senders that are not addresses', () => {
    expect(() => parseNotificationsSettings({ SMTP_URL: 'http://mail.example.com' })).toThrow('SMTP_URL must use smtp: or smtps:');
    expect(() => parseNotificationsSettings({ SMTP_URL: 'mail.example.com' })).toThrow('SMTP_URL must be a URL');
    expect(() => parseNotificationsSettings({ MAIL_FROM: 'nobody' })).toThrow('MAIL_FROM must be an address');
    expect(() => parseNotificationsSettings({ MAIL_FROM: 'A <b@c.test>\r\nBcc: x@y.test' })).toThrow('MAIL_FROM');
  });
});
