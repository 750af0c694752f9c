import { Resolver } from 'node:dns/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../../config/index.js';
import { TxtResolver, type TxtLookup } from '../application/ports/txt-resolver.js';

/** Answers meaning the name has no TXT record: NXDOMAIN, or the name exists without one (NODATA). */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * TXT lookups over DNS with Node's resolver (c-ares): the system's servers, or those of
 * `DNS_RESOLVER_SERVERS`. Each lookup asks afresh (no cache), so a record just published or just
 * removed is seen at the next check, as far as the servers' own caches allow.
 */
@Injectable()
export class DnsTxtResolver extends TxtResolver {
  private readonly resolver: Resolver;

  constructor(config: AppConfig) {
    super();
    const { resolverServers, lookupTimeoutMs } = config.domains;
    this.resolver = new Resolver({ timeout: lookupTimeoutMs, tries: 2 });
    if (resolverServers.length > 0) this.resolver.setServers(resolverServers);
  }

  async lookupTxt(name: string): Promise<TxtLookup> {
    try {
      const records = await this.resolver.resolveTxt(name);
      return { kind: 'records', records: records.map((chunks) => chunks.join('')) };
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'EUNKNOWN';
      return ABSENT.has(code) ? { kind: 'absent' } : { kind: 'unavailable', reason: code };
    }
  }
}
