import { normaliseSupportEmail, supportEmailProblem } from './support-email.js';

describe('support email', () => {
  it.each([
    ['help@acme.com', 'help@acme.com'],
    ['First.Last+tag@Acme.COM', 'First.Last+tag@acme.com'],
    ["o'brien@acme.co.uk", "o'brien@acme.co.uk"],
    ['help@bücher.example', 'help@xn--bcher-kva.example'],
  ])('accepts %s as %s', (input, stored) => {
    expect(normaliseSupportEmail(input)).toEqual({ ok: true, email: stored });
  });

  it.each([
    ['Help Desk <help@acme.com>', /display name/],
    ['"Help" help@acme.com', /display name/],
    ['help@acme.com, boss@acme.com', /display name/],
    ['help@acme.com\r\nBcc: all@evil.test', /control/],
    ['help@acme.com\n', /control/],
    ['he\u0000lp@acme.com', /control/],
    ['he\u200blp@acme.com', /control/],
    ['"quoted"@acme.com', /display name/],
    ['help', /exactly one @/],
    ['@acme.com', /exactly one @/],
    ['a@b@acme.com', /exactly one @/],
    ['.help@acme.com', /double dot/],
    ['help.@acme.com', /double dot/],
    ['he..lp@acme.com', /double dot/],
    ['hélp@acme.com', /plain address/],
    ['help@acme', /dot/],
    ['help@[127.0.0.1]', /display name/],
    ['help@127.0.0.1', /IP/],
    ['help@acme.com.', /letters, digits/],
    [`${'x'.repeat(65)}@acme.com`, /64/],
    [`${'x'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(60)}.com`, /254/],
  ])('refuses %j', (input, why) => {
    expect(supportEmailProblem(input)).toMatch(why);
  });
});
