import { createSocket } from 'node:dgram';
import { AppConfig } from '../../../../config/index.js';
import { startFakeDns, type FakeDns } from '../../../../../test/fakes/dns-server.js';
import { DnsTxtResolver } from './dns-txt-resolver.js';

/** The resolver adapter against a DNS server on 127.0.0.1 speaking the real wire protocol. */
describe('DnsTxtResolver', () => {
  let dns: FakeDns;
  let resolver: DnsTxtResolver;

  beforeAll(async () => {
    dns = await startFakeDns();
    resolver = new DnsTxtResolver(new AppConfig({ DNS_RESOLVER_SERVERS: dns.address, DNS_LOOKUP_TIMEOUT_MS: '500' }));
  });
  afterAll(() => dns.close());

  it('reads every TXT record at the name, a long one joined from its strings', async () => {
    const long = `persona-studio-verification=${'x'.repeat(300)}`;
    dns.setTxt('_persona-studio.Studio.Acme.test', ['v=spf1 -all', long]);
    const answer = await resolver.lookupTxt('_persona-studio.studio.acme.test');
    expect(answer).toEqual({ kind: 'records', records: expect.arrayContaining(['v=spf1 -all', long]) });
    expect(dns.queries.at(-1)).toEqual({ name: '_persona-studio.studio.acme.test', type: 'TXT' });
  });

  it('answers absent for NXDOMAIN and for a name without TXT records (NODATA)', async () => {
    expect(await resolver.lookupTxt('_persona-studio.nobody.acme.test')).toEqual({ kind: 'absent' });
    dns.setTxt('_persona-studio.empty.acme.test', []);
    expect(await resolver.lookupTxt('_persona-studio.empty.acme.test')).toEqual({ kind: 'absent' });
  });

  it('answers unavailable, not absent, when the server fails or does not answer', async () => {
    dns.setFailing(true);
    try {
      expect(await resolver.lookupTxt('_persona-studio.studio.acme.test')).toEqual({ kind: 'unavailable', reason: 'ESERVFAIL' });
    } finally {
      dns.setFailing(false);
    }
    const silent = createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    try {
      const mute = new DnsTxtResolver(new AppConfig({ DNS_RESOLVER_SERVERS: `127.0.0.1:${silent.address().port}`, DNS_LOOKUP_TIMEOUT_MS: '100' }));
      expect(await mute.lookupTxt('_persona-studio.studio.acme.test')).toEqual({ kind: 'unavailable', reason: 'ETIMEOUT' });
    } finally {
      silent.close();
    }
  });

  it('refuses a DNS_RESOLVER_SERVERS entry that is not an address', () => {
    expect(() => new AppConfig({ DNS_RESOLVER_SERVERS: 'dns.example.com' })).toThrow(/DNS_RESOLVER_SERVERS/);
    expect(() => new AppConfig({ DNS_RESOLVER_SERVERS: '127.0.0.1:99999' })).toThrow(/DNS_RESOLVER_SERVERS/);
    expect(new AppConfig({ DNS_RESOLVER_SERVERS: '127.0.0.1:5353, [::1]:53, 9.9.9.9' }).domains.resolverServers).toEqual(['127.0.0.1:5353', '[::1]:53', '9.9.9.9']);
  });
});
