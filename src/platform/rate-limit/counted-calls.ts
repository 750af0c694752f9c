import { Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The header that marks a request this process sent itself for a request it already counted. */
export const COUNTED_CALL_HEADER = 'x-persona-counted-call';

/**
 * Requests this process sends itself over loopback on behalf of a request the rate limit already
 * counted (an MCP tool call runs its REST route that way): they carry a token only this process
 * knows, made at boot and never sent anywhere else, and the limit does not count them again. A
 * client cannot forge it, and one process's token means nothing to another.
 */
@Injectable()
export class CountedCalls {
  private readonly token = randomBytes(32);

  /** The header to send on such a loopback request. */
  header(): Record<string, string> {
    return { [COUNTED_CALL_HEADER]: this.token.toString('base64url') };
  }

  /** Whether a request from `remoteAddress` with `headers` is this process's own loopback call (its token, from loopback). */
  isCounted(headers: Record<string, string | string[] | undefined>, remoteAddress: string | undefined): boolean {
    if (!isLoopback(remoteAddress)) return false;
    const value = headers[COUNTED_CALL_HEADER];
    if (typeof value !== 'string') return false;
    const given = Buffer.from(value, 'base64url');
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }
}

function isLoopback(address: string | undefined): boolean {
  return address === '::1' || address?.startsWith('127.') === true || address?.startsWith('::ffff:127.') === true;
}
