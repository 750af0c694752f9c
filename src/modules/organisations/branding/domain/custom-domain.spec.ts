import { customDomainProblem, domainSkeleton, normaliseDomain, provesClaim, verificationRecordName, verificationRecordValue } from './custom-domain.js';

const ascii = (d: string): string | null => {
  const n = normaliseDomain(d);
  return n.ok ? n.domain.ascii : null;
};

describe('custom domain normalisation (UTS-46)', () => {
  it.each([
    ['app.example.com', 'app.example.com', 'app.example.com'],
    ['App.Example.COM', 'app.example.com', 'app.example.com'],
    ['Bücher.Example', 'xn--bcher-kva.example', 'bücher.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example', 'bücher.example'],
    ['ＡＢＣ.com', 'abc.com', 'abc.com'],
    ['faß.de', 'xn--fa-hia.de', 'faß.de'],
    ['аpple.com', 'xn--pple-43d.com', 'аpple.com'],
  ])('stores %s as its A-label %s and shows %s', (input, a, u) => {
    expect(normaliseDomain(input)).toEqual({ ok: true, domain: { ascii: a, unicode: u } });
  });

  it.each([
    ['https://app.example.com', /scheme/],
    ['app.example.com:8443', /port/],
    ['app.example.com/login', /path/],
    ['a.b/c', /path/],
    ['%61pp.example.com', /bare hostname/],
    ['user@app.example.com', /bare hostname/],
    ['app .example.com', /spaces/],
    ['app.example.com\r\n', /spaces/],
    ['localhost', /dot/],
    ['127.0.0.1', /IP/],
    ['0x7f.1', /IP/],
    ['10.1', /IP/],
    ['::1', /port/],
    ['-bad.example.com', /letters, digits/],
    ['bad-.example.com', /letters, digits/],
    ['under_score.example.com', /letters, digits/],
    ['app.example.com.', /letters, digits/],
    ['a..b', /letters, digits/],
    ['ab--cd.example.com', /"--"/],
    ['xn--a.com', /internationalised/],
    [`${'a'.repeat(64)}.com`, /63/],
    [`${'abcdefghi.'.repeat(26)}com`, /253/],
    ['', /hostname/],
  ])('refuses %j (%s)', (d, why) => {
    expect(customDomainProblem(d)).toMatch(why);
  });

  it('accepts what the old rule accepted', () => {
    for (const d of ['a.io', 'my-brand.co.uk', `${'a'.repeat(63)}.com`]) expect(ascii(d)).toBe(d);
  });
});

describe('look-alike skeletons', () => {
  it('gives a Cyrillic or Greek look-alike, a digit swap or rn/m the same skeleton as the Latin domain', () => {
    const original = domainSkeleton('apple.com');
    for (const lookalike of ['аpple.com', 'αpple.com', 'app1e.com', 'аррlе.com', 'äpple.com']) {
      expect({ lookalike, skeleton: domainSkeleton(ascii(lookalike)!) }).toEqual({ lookalike, skeleton: original });
    }
    expect(domainSkeleton('example.corn')).toBe(domainSkeleton('example.com'));
    expect(domainSkeleton('g00gle.com')).toBe(domainSkeleton('google.com'));
  });

  it('keeps different-looking domains apart', () => {
    expect(domainSkeleton('mail.com')).not.toBe(domainSkeleton('mall.com'));
    expect(domainSkeleton('app.example.com')).not.toBe(domainSkeleton('example.com'));
    expect(domainSkeleton('studio.acme.test')).not.toBe(domainSkeleton('studio.acne.test'));
  });
});

describe('the TXT proof', () => {
  it('lives at _persona-studio.<domain> and must be the claim\'s own value', () => {
    expect(verificationRecordName('xn--bcher-kva.example')).toBe('_persona-studio.xn--bcher-kva.example');
    const value = verificationRecordValue('abc123');
    expect(value).toBe('persona-studio-verification=abc123');
    expect(provesClaim(['v=spf1 -all', ` ${value} `], 'abc123')).toBe(true);
    expect(provesClaim([verificationRecordValue('other')], 'abc123')).toBe(false);
    expect(provesClaim(['persona-studio-verification=abc1234'], 'abc123')).toBe(false);
    expect(provesClaim([], 'abc123')).toBe(false);
  });
});
