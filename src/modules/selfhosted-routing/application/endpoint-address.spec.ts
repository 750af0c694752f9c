import { describe, expect, it } from '@jest/globals';
import { endpointUrlRefusal, normaliseEndpointUrl } from './endpoint-address.js';

const resolvesTo = (...ips: string[]) => async () => ips;

describe('endpoint URL rules', () => {
  it('allows http(s) to private, loopback and public addresses', async () => {
    for (const url of ['http://10.0.4.12:7860', 'https://gpu.example.com', 'http://127.0.0.1:8188', 'http://[::1]:7860', 'http://192.168.1.20/comfy']) {
      expect(await endpointUrlRefusal(url, resolvesTo('203.0.114.7'))).toBeNull();
    }
  });

  it('refuses other schemes, credentials, queries, link-local, metadata and non-unicast addresses', async () => {
    const refused = ['ftp://10.0.0.1', 'file:///etc/passwd', 'http://u:p@10.0.0.1', 'http://10.0.0.1/?a=1', 'http://169.254.169.254/', 'http://[fe80::1]/',
      'http://[fd00:ec2::254]/', 'http://100.100.100.200/', 'http://metadata.google.internal/', 'http://0.0.0.0:7860', 'http://224.0.0.1', 'http://[::ffff:169.254.169.254]/', 'nonsense',
      'http://[64:ff9b::169.254.169.254]/', 'http://[::169.254.169.254]/', 'http://[::ffff:0:169.254.169.254]/', 'http://[2002:a9fe:a9fe::]/', 'http://[::ffff:100.100.100.200]/'];
    for (const url of refused) expect([url, await endpointUrlRefusal(url, resolvesTo())]).toEqual([url, expect.any(String)]);
  });

  it('refuses a name that resolves to a link-local address, and accepts one that does not resolve yet', async () => {
    expect(await endpointUrlRefusal('http://gpu.internal:7860', resolvesTo('10.0.0.3', '169.254.169.254'))).toMatch(/resolves/);
    expect(await endpointUrlRefusal('http://gpu.internal:7860', async () => Promise.reject(new Error('ENOTFOUND')))).toBeNull();
    expect(await endpointUrlRefusal('http://gpu.internal:7860', resolvesTo('64:ff9b::a9fe:a9fe'))).toMatch(/resolves/);
  });

  it('stores the URL without a trailing slash', () => {
    expect(normaliseEndpointUrl('http://10.0.0.1:7860/')).toBe('http://10.0.0.1:7860');
    expect(normaliseEndpointUrl('http://10.0.0.1/proxy/comfy//')).toBe('http://10.0.0.1/proxy/comfy');
  });
});
