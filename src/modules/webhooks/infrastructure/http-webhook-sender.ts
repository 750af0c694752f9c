import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '../../../config/index.js';
import { isOutboundError, PinnedAgents, readNodeSnippet, requestPinned, vetHost, type HostResolver } from '../../../platform/outbound/index.js';
import { WebhookSender, type SendResult } from '../application/ports/webhook-sender.js';
import { RESPONSE_EXCERPT_BYTES } from '../domain/webhook-rules.js';

/** An idle kept-alive connection closes after this: sooner than servers' usual keep-alive (Node's 5 s, gunicorn's 2 s), so a reused one is rarely closed under us. */
const IDLE_CONNECTION_MS = 1_000;

/** A request that failed on a reused kept-alive connection the other side had closed. */
function reusedConnectionClosed(err: unknown): boolean {
  const e = err as { reusedSocket?: boolean; code?: string };
  return e.reusedSocket === true && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
}

/**
 * Posts deliveries with the platform's pinned connections: the name is resolved and every address
 * vetted as a user-supplied URL's at each attempt (OUTBOUND_ALLOW_HOSTS exempts the tests' loopback
 * receivers), the socket goes to that vetted address (no second DNS answer can move it), a 3xx is
 * an answer like any other (never followed), and at most 1 KiB of the answer is read. Connections
 * are kept alive per vetted address (`PinnedAgents`): an endpoint's deliveries reuse one instead of
 * a TCP (and TLS) handshake each.
 */
@Injectable()
export class HttpWebhookSender extends WebhookSender implements OnApplicationShutdown {
  /** Tests replace it to make names resolve where they want. */
  resolver?: HostResolver;
  private readonly agents: PinnedAgents;

  constructor(private readonly config: AppConfig) {
    super();
    // Not capped per agent: endpoints on one host share its agent, and the delivery loop bounds each endpoint.
    this.agents = new PinnedAgents({ maxAgents: 256, maxSockets: Infinity, idleMs: IDLE_CONNECTION_MS });
  }

  onApplicationShutdown(): void {
    this.agents.destroy();
  }

  async send(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    const elapsed = () => Math.round(performance.now() - started);
    let res: IncomingMessage | undefined;
    try {
      const target = new URL(url);
      const address = await untilAborted(
        vetHost(target, { policy: 'public', allowHosts: this.config.outboundAllowHosts, resolve: this.resolver, what: 'webhooks' }),
        signal,
      );
      const request = { method: 'POST', headers, body, agent: this.agents.for(target, address) };
      // A kept-alive connection the server closed as we reused it fails before any answer: the
      // request never reached the endpoint, so it goes once more on a new connection.
      res = await requestPinned(target, address, signal, request).catch((err: unknown) => {
        if (!reusedConnectionClosed(err) || signal.aborted) throw err;
        return requestPinned(target, address, signal, { ...request, agent: undefined });
      });
      const status = res.statusCode ?? 0;
      const excerpt = await readExcerpt(res);
      const redirect = status >= 300 && status <= 399;
      return {
        status,
        excerpt,
        error: redirect ? `redirect not followed${typeof res.headers.location === 'string' ? ` (to ${res.headers.location.slice(0, 200)})` : ''}` : null,
        durationMs: elapsed(),
      };
    } catch (err) {
      res?.destroy();
      const message = signal.aborted ? `timed out after ${timeoutMs} ms` : isOutboundError(err) ? err.message : describe(err);
      return { status: null, excerpt: null, error: message.slice(0, 500), durationMs: elapsed() };
    }
  }
}

function describe(err: unknown): string {
  const cause = (err as { code?: string; cause?: { code?: string } } | undefined);
  return cause?.code ?? cause?.cause?.code ?? (err instanceof Error ? err.message : String(err));
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The first KiB of the answer (NULs dropped, PostgreSQL text refuses them); the rest is never read. */
async function readExcerpt(res: IncomingMessage): Promise<string> {
  return (await readNodeSnippet(res, RESPONSE_EXCERPT_BYTES)).replaceAll('\u0000', '');
}
