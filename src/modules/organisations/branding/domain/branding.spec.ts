import { applyChanges, changeProblems, colorProblem, customDomainProblem, emptyBranding, hasBranding, supportEmailProblem } from './branding.js';

describe('branding rules', () => {
  it.each(['#000000', '#A1b2C3', '#ffffff'])('accepts the color %s', (c) => {
    expect(colorProblem(c, 'primary_color')).toBeNull();
  });

  it.each(['000000', '#FFF', '#GGGGGG', '#1234567', 'red', '', null, 123])('refuses the color %p', (c) => {
    expect(colorProblem(c, 'primary_color')).toMatch(/primary_color/);
  });

  it('checks domains and support emails by their own rules (custom-domain.spec, support-email.spec)', () => {
    expect(customDomainProblem('App.Example.com')).toBeNull();
    expect(customDomainProblem('app.example.com/login')).toMatch(/path/);
    expect(supportEmailProblem('help@acme.com')).toBeNull();
    expect(supportEmailProblem('Help <help@acme.com>')).toMatch(/display name/);
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
