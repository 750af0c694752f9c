import { applyChanges, changeProblems, colorProblem, customDomainProblem, emptyBranding, hasBranding, supportEmailProblem } from './branding.js';

describe('branding rules', () => {
  it.each(['#000000', '#A1b2C3', '#ffffff'])('accepts the color %s', (c) => {
    expect(colorProblem(c, 'primary_color')).toBeNull();
  });

  it.each(['000000', '#FFF', '#GGGGGG', '#1234567', 'red', '', null, 123])('refuses the color %p', (c) => {
    expect(colorProblem(c, 'primary_color')).toMatch(/primary_color/);
  });

  it.each(['app.example.com', 'a.io', 'xn--bcher-kva.example', 'my-brand.co.uk', `${'a'.repeat(63)}.com`])('accepts the domain %s', (d) => {
    expect(customDomainProblem(d)).toBeNull();
  });

  it.each([
    ['https://app.example.com', /scheme/],
    ['app.example.com:8443', /port/],
    ['app.example.com/login', /path/],
    ['localhost', /dot/],
    ['App.Example.com', /lowercase/],
    ['127.0.0.1', /IP/],
    ['10.1', /IP/],
    ['::1', /scheme, port/],
    ['-bad.example.com', /letters, digits/],
    ['bad-.example.com', /letters, digits/],
    ['under_score.example.com', /letters, digits/],
    ['app.example.com.', /letters, digits/],
    ['a..b', /letters, digits/],
    [`${'a'.repeat(64)}.com`, /63/],
    [`${'abcdefghi.'.repeat(26)}com`, /253/],
    ['', /hostname/],
  ])('refuses the domain %s', (d, why) => {
    expect(customDomainProblem(d)).toMatch(why);
  });

  it('checks support emails loosely but refuses what cannot be one', () => {
    expect(supportEmailProblem('help@acme.com')).toBeNull();
    for (const bad of ['help', 'help@acme', 'a b@acme.com', '@acme.com', `${'x'.repeat(250)}@a.io`]) expect(supportEmailProblem(bad)).not.toBeNull();
  });

  it('applies only the fields given; null clears', () => {
    const start = { ...emptyBranding('ws_1', new Date(0)), displayName: 'Acme', primaryColor: '#111111', customDomain: 'a.acme.com' };
    const now = new Date(1000);
    const next = applyChanges(start, { primaryColor: '#222222', customDomain: null }, now);
    expect(next).toEqual({ ...start, primaryColor: '#222222', customDomain: null, updatedAt: now });
  });

  it('has branding only when something shows on a page', () => {
    const empty = emptyBranding('ws_1', new Date(0));
    expect(hasBranding(empty)).toBe(false);
    expect(hasBranding({ ...empty, supportEmail: 'a@b.co', customDomain: 'a.b.co' })).toBe(false);
    expect(hasBranding({ ...empty, secondaryColor: '#000000' })).toBe(true);
  });
});

describe('branding change problems', () => {
  it('names each bad field and lets null and absent fields be', () => {
    expect(changeProblems({ displayName: null, customDomain: undefined, primaryColor: '#000000' })).toEqual([]);
    expect(changeProblems({ primaryColor: 'blue', customDomain: '10.0.0.1', supportEmail: 'x' }).map((p) => p.field)).toEqual(['primary_color', 'custom_domain', 'support_email']);
  });
});
