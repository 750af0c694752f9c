import { describe, expect, it } from '@jest/globals';
import { callRequestId } from './mcp-server.js';
import { loopbackHost } from './route-caller.js';

describe('a tool call\'s request id', () => {
  it('is the MCP request\'s id and the JSON-RPC id, in what the request-id middleware accepts', () => {
    expect(callRequestId('req_01J0000000000000000000000', 3)).toBe('req_01J0000000000000000000000.3');
    const long = callRequestId('x'.repeat(64), 'id with spaces/and:odd*chars');
    expect(long).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
    expect(long.endsWith('.idwithspacesandoddch')).toBe(true);
    expect(callRequestId('req_1', '***')).toBe('req_1.call');
  });
});

describe('the loopback address of the listening socket', () => {
  it('reaches a wildcard bind on loopback and brackets IPv6', () => {
    expect(loopbackHost({ address: '0.0.0.0', family: 'IPv4' })).toBe('127.0.0.1');
    expect(loopbackHost({ address: '::', family: 'IPv6' })).toBe('[::1]');
    expect(loopbackHost({ address: '127.0.0.1', family: 'IPv4' })).toBe('127.0.0.1');
    expect(loopbackHost({ address: '::1', family: 'IPv6' })).toBe('[::1]');
  });
});
