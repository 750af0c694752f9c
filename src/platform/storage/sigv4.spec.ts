import { describe, expect, it } from '@jest/globals';
import { amzDate, canonicalRequest, EMPTY_PAYLOAD_HASH, presignV4, sha256Hex, signV4 } from './sigv4.js';

describe('SigV4 signing', () => {
  it('matches the AWS S3 documentation example (GET Object with Range)', () => {
    const date = new Date('2013-05-24T00:00:00Z');
    const req = {
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': EMPTY_PAYLOAD_HASH,
        'x-amz-date': amzDate(date),
      },
      payloadHash: EMPTY_PAYLOAD_HASH,
    };
    expect(sha256Hex(canonicalRequest(req).text)).toBe('7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    const auth = signV4(req, { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 's3' }, date);
    expect(auth).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('matches the SigV4 test suite get-vanilla vector', () => {
    const date = new Date('2015-08-30T12:36:00Z');
    const auth = signV4(
      {
        method: 'GET',
        url: new URL('https://example.amazonaws.com/'),
        headers: { Host: 'example.amazonaws.com', 'X-Amz-Date': amzDate(date) },
        payloadHash: EMPTY_PAYLOAD_HASH,
      },
      { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 'service' },
      date,
    );
    expect(auth).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('sorts and encodes query parameters', () => {
    const { text } = canonicalRequest({
      method: 'get',
      url: new URL('https://h.example/?b=2&a=x y&a=1'),
      headers: { host: 'h.example' },
      payloadHash: EMPTY_PAYLOAD_HASH,
    });
    expect(text.split('\n')[2]).toBe('a=1&a=x%20y&b=2');
  });

  it('presigns as the AWS S3 documentation example (query-string authentication)', () => {
    const url = presignV4(
      'GET',
      new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 's3' },
      new Date('2013-05-24T00:00:00Z'),
      86400,
    );
    expect(url).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z' +
        '&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });
});
