import { describe, expect, it } from '@jest/globals';
import { awsUriEncode, canonicalQueryString, canonicalUri, sha256, signatureOf, verifyHeaderSigned, verifyPresigned, type ArrivedRequest } from './sigv4-verifier.js';

/**
 * The S3 fake's verifier against signatures AWS published, not against the product's signer:
 * the SigV4 test suite (service `service`, 2015-08-30T12:36:00Z) and the S3 developer guide's
 * worked examples (2013-05-24). A signature that verifies here was made the way AWS makes it.
 */
const SUITE = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 'service' };
const SUITE_AT = new Date('2015-08-30T12:36:00Z');
const S3_DOCS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 's3' };
const S3_AT = new Date('2013-05-24T00:00:00Z');
const EMPTY = sha256('');

function suiteRequest(method: string, target: string, signature: string, extra: Record<string, string> = {}): ArrivedRequest {
  const names = ['host', 'x-amz-date', ...Object.keys(extra)].sort().join(';');
  return {
    method,
    target,
    headers: {
      host: 'example.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
      ...extra,
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=${names}, Signature=${signature}`,
    },
  };
}

describe('the S3 fake verifies SigV4 as AWS publishes it', () => {
  // [name, method, target as sent on the wire, body, published signature, further signed headers]
  const vectors: Array<[string, string, string, string, string, Record<string, string>]> = [
    ['get-vanilla', 'GET', '/', '', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31', {}],
    ['post-x-www-form-urlencoded', 'POST', '/', 'Param1=value1', 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a', { 'content-type': 'application/x-www-form-urlencoded' }],
    // A space in the path, S3's unnormalized rule: canonical `/example%20space/`.
    ['get-space (unnormalized)', 'GET', '/example%20space/', '', '652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741', {}],
    // Unicode in the path: U+1234 is the three bytes %E1%88%B4.
    ['get-utf8', 'GET', '/%E1%88%B4', '', '8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85', {}],
    // `+` and other reserved characters in the query are encoded, never read as a space.
    ['post-vanilla-query-nonunreserved', 'POST', '/?%40%23%24%25%5E=&%2B=%2F%2C%3F%3E%3C%60%22%3B%3A%5C%7C%5D%5B%7B%7D', '', '66c82657c86e26fb25238d0e69f011edc4c6df5ae71119d7cb98ed9b87393c1e', {}],
    ['get-vanilla-query-order-key-case', 'GET', '/?Param2=value2&Param1=value1', '', 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500', {}],
  ];

  it.each(vectors)('%s', (_name, method, target, body, signature, extra) => {
    const req = suiteRequest(method, target, signature, extra);
    expect(verifyHeaderSigned(req, Buffer.from(body), SUITE, SUITE_AT)).toBeNull();
    // One hex digit off is refused: the check is real.
    const forged = suiteRequest(method, target, signature.replace(/.$/, (c) => (c === '0' ? '1' : '0')), extra);
    expect(verifyHeaderSigned(forged, Buffer.from(body), SUITE, SUITE_AT)).toBe('SignatureDoesNotMatch');
  });

  it('the S3 guide: PUT of the key `test$file.text` (a special character) with a body hash', () => {
    const body = Buffer.from('Welcome to Amazon S3.');
    const req: ArrivedRequest = {
      method: 'PUT',
      target: '/test%24file.text',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        date: 'Fri, 24 May 2013 00:00:00 GMT',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': sha256(body),
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
          'SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,' +
          'Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
      },
    };
    expect(verifyHeaderSigned(req, body, S3_DOCS, S3_AT)).toBeNull();
    // The same key sent unencoded is the same key to S3, so the same signature holds.
    expect(verifyHeaderSigned({ ...req, target: '/test$file.text' }, body, S3_DOCS, S3_AT)).toBeNull();
    expect(verifyHeaderSigned(req, Buffer.from('Welcome to Amazon S4.'), S3_DOCS, S3_AT)).toBe('XAmzContentSHA256Mismatch');
    expect(verifyHeaderSigned(req, body, S3_DOCS, new Date(S3_AT.getTime() + 16 * 60_000))).toBe('RequestTimeTooSkewed');
  });

  it('the S3 guide: GET with a Range header, and its presigned URL', () => {
    const get: ArrivedRequest = {
      method: 'GET',
      target: '/test.txt',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': EMPTY,
        'x-amz-date': '20130524T000000Z',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
          'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      },
    };
    expect(verifyHeaderSigned(get, Buffer.alloc(0), S3_DOCS, S3_AT)).toBeNull();
    const presigned: ArrivedRequest = {
      method: 'GET',
      target:
        '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
      headers: { host: 'examplebucket.s3.amazonaws.com' },
    };
    expect(verifyPresigned(presigned, S3_DOCS, S3_AT)).toBeNull();
    expect(verifyPresigned(presigned, S3_DOCS, new Date(S3_AT.getTime() + 86_401_000))).toBe('AccessDenied');
    expect(verifyPresigned({ ...presigned, target: presigned.target.replace('test.txt', 'other.txt') }, S3_DOCS, S3_AT)).toBe('SignatureDoesNotMatch');
  });

  it('canonicalises keys with spaces, unicode and `+` the S3 way, however the client encoded them', () => {
    // S3 decodes the path once to the key and re-encodes it: `+` in a path is a literal plus.
    expect(canonicalUri('/bucket/a b+c/%C3%BC.png')).toBe('/bucket/a%20b%2Bc/%C3%BC.png');
    expect(canonicalUri('/bucket/a%20b%2Bc/%c3%bc.png')).toBe('/bucket/a%20b%2Bc/%C3%BC.png');
    expect(canonicalUri("/bucket/a!b'c(d)*e")).toBe('/bucket/a%21b%27c%28d%29%2Ae');
    expect(awsUriEncode('ሴ', false)).toBe('%E1%88%B4');
    expect(canonicalQueryString('b=2&a=x%20y&a=1&X-Amz-Signature=f', ['X-Amz-Signature'])).toBe('a=1&a=x%20y&b=2');
  });

  it('a signature over a differently encoded key is refused (a `+` signed as a space)', () => {
    const creds = { ...S3_DOCS };
    const headers = { host: 's3.test', 'x-amz-date': '20130524T000000Z', 'x-amz-content-sha256': EMPTY };
    // The client signs the key "a b" but sends "a+b": S3 reads a plus, so the signature cannot hold.
    const signedForSpace = signatureOf(['GET', '/bucket/a%20b', '', 'host:s3.test\nx-amz-content-sha256:' + EMPTY + '\nx-amz-date:20130524T000000Z\n', 'host;x-amz-content-sha256;x-amz-date', EMPTY].join('\n'), '20130524T000000Z', creds);
    const authorization = `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${signedForSpace}`;
    expect(verifyHeaderSigned({ method: 'GET', target: '/bucket/a%20b', headers: { ...headers, authorization } }, Buffer.alloc(0), creds, S3_AT)).toBeNull();
    expect(verifyHeaderSigned({ method: 'GET', target: '/bucket/a+b', headers: { ...headers, authorization } }, Buffer.alloc(0), creds, S3_AT)).toBe('SignatureDoesNotMatch');
  });
});
