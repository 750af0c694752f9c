import { describe, expect, it } from '@jest/globals';
import { smtpOptionsOf } from './smtp-mailer.js';

describe('SMTP_URL forms', () => {
  it('smtp: plain with STARTTLS on 587 unless a port is given', () => {
    expect(smtpOptionsOf('smtp://mail.example.com')).toEqual({ host: 'mail.example.com', port: 587, secure: false });
    expect(smtpOptionsOf('smtp://127.0.0.1:2525')).toEqual({ host: '127.0.0.1', port: 2525, secure: false });
  });

  it('smtps: TLS from the start on 465, with percent-decoded credentials', () => {
    expect(smtpOptionsOf('smtps://user%40x.test:p%40ss%3Aw@mail.example.com')).toEqual({
      host: 'mail.example.com', port: 465, secure: true, auth: { user: 'user@x.test', pass: 'p@ss:w' },
    });
  });

  it('accepts a self-signed certificate only when asked', () => {
    expect(smtpOptionsOf('smtps://relay.internal:465?tls=insecure').tls).toEqual({ rejectUnauthorized: false });
    expect(smtpOptionsOf('smtps://relay.internal:465').tls).toBeUndefined();
  });
});
