import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { DATA_CONTRIBUTOR_KEY, type WorkspaceDataContributor } from './data-contributor.js';

/** Checks the contributors found at boot: each has a context name, no two share one. Throws, naming them. */
export function buildContributorTable(found: Array<{ owner: string; contributor: WorkspaceDataContributor }>): WorkspaceDataContributor[] {
  const owners = new Map<string, string>();
  for (const { owner, contributor } of found) {
    const context = contributor.context;
    if (typeof context !== 'string' || !/^[a-z][a-z0-9-]{0,39}$/.test(context)) {
      throw new Error(`Data contributor ${owner} has no valid context name`);
    }
    const taken = owners.get(context);
    if (taken) throw new Error(`Data context "${context}" has two contributors: ${taken} and ${owner}`);
    owners.set(context, owner);
  }
  return found.map((f) => f.contributor).sort((a, b) => a.context.localeCompare(b.context));
}

/** Every `@DataContributor()` provider of the application, found at boot. */
@Injectable()
export class DataContributors implements OnModuleInit {
  private readonly logger = new Logger('DataRights');
  private table: WorkspaceDataContributor[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const found: Array<{ owner: string; contributor: WorkspaceDataContributor }> = [];
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.metatype || seen.has(instance)) continue;
      if (!this.reflector.get<boolean | undefined>(DATA_CONTRIBUTOR_KEY, wrapper.metatype as object as new () => unknown)) continue;
      seen.add(instance);
      found.push({ owner: instance.constructor.name, contributor: instance as WorkspaceDataContributor });
    }
    this.table = buildContributorTable(found);
    this.logger.log({ msg: 'data contributors registered', contexts: this.table.map((c) => c.context) });
  }

  all(): readonly WorkspaceDataContributor[] {
    return this.table;
  }
}
