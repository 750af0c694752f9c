import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../../../core/index.js';
import { failsForGood, upstreamFailed } from './provider-failure.js';

describe('failsForGood', () => {
  it.each([
    ['an unusable answer', upstreamFailed('openai', 'bad_response', 'unusable twice')],
    ['a request the provider cannot take', upstreamFailed('openai', 'bad_input', 'empty thread')],
    ['a missing key', upstreamFailed('openai', 'not_configured', 'no key')],
    ['a 400', upstreamFailed('openai', 'http_error', '400', { status: 400 })],
    ['a 401', upstreamFailed('openai', 'http_error', '401', { status: 401 })],
  ])('says yes to %s', (_what, err) => {
    expect(failsForGood(err)).toBe(true);
  });

  it.each([
    ['a timeout', upstreamFailed('openai', 'timeout', 'late')],
    ['a network failure', upstreamFailed('openai', 'network', 'reset')],
    ['a 500', upstreamFailed('openai', 'http_error', '500', { status: 500 })],
    ['a 429', upstreamFailed('openai', 'http_error', '429', { status: 429 })],
    ['a 408', upstreamFailed('openai', 'http_error', '408', { status: 408 })],
    ['another error code', new AppError('not_found', 'gone')],
    ['a plain error', new Error('boom')],
  ])('says no to %s', (_what, err) => {
    expect(failsForGood(err)).toBe(false);
  });
});
