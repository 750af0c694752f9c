import { describe, expect, it, jest } from '@jest/globals';
import { deviceName, fingerprintOf, ipPrefix, isKnownDevice, UNKNOWN_DEVICE } from './devices.js';

describe('deviceName', () => {
  it.each([
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0', 'Firefox on macOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'Chrome on Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91', 'Edge on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
    ['Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1', 'Chrome on iOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/121.0 Mobile/15E148 Safari/605.1.15', 'Firefox on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36', 'Chrome on Android'],
    ['Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36', 'Samsung Internet on Android'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0', 'Opera on Linux'],
    ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0', 'Firefox on Linux'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Trident/7.0; rv:11.0) like Gecko', 'Internet Explorer on Windows'],
    ['curl/8.4.0', 'curl'],
    ['PostmanRuntime/7.36.0', 'Postman'],
    ['python-requests/2.31.0', 'Python'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) SomethingNew/1.0', 'Unknown browser on Windows'],
  ])('%s is %s', (ua, name) => {
    expect(deviceName(ua)).toBe(name);
  });

  it('names no header, an empty one and gibberish the unknown device', () => {
    expect(deviceName(undefined)).toBe(UNKNOWN_DEVICE);
    expect(deviceName(null)).toBe(UNKNOWN_DEVICE);
    expect(deviceName('')).toBe(UNKNOWN_DEVICE);
    expect(deviceName('zz-top 1.0')).toBe(UNKNOWN_DEVICE);
  });

  it('reads only the first 512 characters of a huge header: no regex is handed more', () => {
    // Every RegExp method (test, match, replace, …) goes through `exec`, so its inputs are what the
    // patterns are run over: their lengths bound the work, whatever the machine's speed.
    const exec = jest.spyOn(RegExp.prototype, 'exec');
    let names: string[];
    let examined: number[];
    try {
      names = [deviceName(`${'a'.repeat(600)} Firefox/121.0 (Windows)`), deviceName(`Firefox/121.0 ${'(Macintosh '.repeat(100_000)}`)];
      examined = exec.mock.calls.map(([input]) => String(input).length);
    } finally {
      exec.mockRestore();
    }
    expect(names).toEqual([UNKNOWN_DEVICE, 'Firefox on macOS']);
    expect(examined.length).toBeGreaterThan(0);
    expect(Math.max(...examined)).toBeLessThanOrEqual(512);
  });
});

describe('ipPrefix', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['127.0.0.1', '127.0.0.0/24'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
    ['::FFFF:10.1.2.3', '10.1.2.0/24'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd::/48'],
    ['2001:0db8:0001:0000:0000:0000:0000:0001', '2001:db8:1::/48'],
    ['2001:db8::1', '2001:db8::/48'],
    ['::1', '::/48'],
    ['fe80::1%eth0', 'fe80::/48'],
    ['64:ff9b::192.0.2.33', '64:ff9b::/48'],
  ])('%s is in %s', (ip, prefix) => {
    expect(ipPrefix(ip)).toBe(prefix);
  });

  it.each([undefined, null, '', 'localhost', '256.1.1.1', '1.2.3', '1.2.3.4.5', '2001:db8:::1', '1:2:3:4:5:6:7:8:9', 'g::1', '1::2::3', '1:2:3:4:5:6:7:8::'])(
    'answers null for %p',
    (ip) => {
      expect(ipPrefix(ip)).toBeNull();
    },
  );
});

describe('isKnownDevice', () => {
  const firefoxMac = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0';
  const seen = [fingerprintOf({ userAgent: firefoxMac, ip: '203.0.113.7' })];

  it('knows the same browser and OS from the same network, after an update and from another address there', () => {
    expect(isKnownDevice(fingerprintOf({ userAgent: firefoxMac.replaceAll('121.0', '122.0'), ip: '203.0.113.200' }), seen)).toBe(true);
  });

  it('does not know another browser, another OS, or the same browser from another network', () => {
    expect(isKnownDevice(fingerprintOf({ userAgent: 'Mozilla/5.0 (Macintosh) Chrome/120.0 Safari/537.36', ip: '203.0.113.7' }), seen)).toBe(false);
    expect(isKnownDevice(fingerprintOf({ userAgent: firefoxMac.replace('Macintosh; Intel Mac OS X 14.1', 'Windows NT 10.0'), ip: '203.0.113.7' }), seen)).toBe(false);
    expect(isKnownDevice(fingerprintOf({ userAgent: firefoxMac, ip: '203.0.114.7' }), seen)).toBe(false);
    expect(isKnownDevice(fingerprintOf({ userAgent: firefoxMac, ip: '203.0.113.7' }), [])).toBe(false);
  });
});
