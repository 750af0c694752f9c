import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../../../platform/http/index.js';
import { CountedCalls } from '../../../platform/rate-limit/index.js';
import type { RouteAnswer, RouteRequest } from './tool-call.js';

/** What a tool call carries from the MCP request to the route it calls. */
export interface CallerCredentials {
  authorization: string;
  requestId: string;
}

/** Long enough for a publish that waits on its platform; a tool call never outlives its agent's patience by much. */
const ROUTE_TIMEOUT_MS = 120_000;

/**
 * Calls a public route on this same process over loopback, with the agent's own API key, so the
 * route answers exactly as it would over REST: its guard (scope, plan), validation, idempotency and
 * error bodies run unchanged. The MCP request was counted against the rate limit, so the route's
 * request is marked as counted (`CountedCalls`) and not counted again. The address is the listening socket's, read when the
 * call is made (the port may be chosen by the system, PORT=0).
 */
@Injectable()
export class RouteCaller {
  constructor(
    private readonly http: HttpAdapterHost,
    private readonly counted: CountedCalls,
  ) {}

  async call(request: RouteRequest, credentials: CallerCredentials): Promise<RouteAnswer> {
    const headers: Record<string, string> = {
      Authorization: credentials.authorization,
      'X-Request-Id': credentials.requestId,
      Accept: 'application/json',
      'User-Agent': 'persona-studio-mcp',
      ...this.counted.header(),
    };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.origin()}/${API_PREFIX}${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(ROUTE_TIMEOUT_MS),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  private origin(): string {
    const server = this.http.httpAdapter.getHttpServer() as Server;
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the MCP tools need the API listening on a TCP port');
    return `http://${loopbackHost(address)}:${address.port}`;
  }
}

/** The address to reach a socket bound to `address` from this host: a wildcard bind is reached on loopback. */
export function loopbackHost(address: Pick<AddressInfo, 'address' | 'family'>): string {
  if (address.address === '0.0.0.0' || address.address === '') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
