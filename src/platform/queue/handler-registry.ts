import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { JOB_FAILURE_HOOK_KEY, JOB_HANDLER_KEY } from './job-handler.decorator.js';
import type { JobFailureHookFn, JobHandlerFn } from './job.types.js';

/** A job type's handler and, when declared, its failure hook. */
export interface RegisteredHandler {
  jobType: string;
  run: JobHandlerFn;
  onFailed?: JobFailureHookFn;
}

/** One decorated method found at boot; `owner` names it in boot errors (`Class.method`). */
export interface DeclaredMethod {
  kind: 'handler' | 'failure-hook';
  jobType: string;
  owner: string;
  fn: (...args: never[]) => Promise<unknown>;
}

/** The service's job types, as `src/job-types.ts` lists them; the registry checks each has a handler. */
export const JOB_TYPES = Symbol('JOB_TYPES');

/** Looks up the handler of a job type; the runner depends only on this. */
export abstract class HandlerLookup {
  abstract handlerFor(jobType: string): RegisteredHandler | undefined;
}

/**
 * Builds the job type → handler table. Each declared job type needs exactly one handler: a type
 * with none or two, a handler of an undeclared type, or a failure hook without a handler (or two)
 * is a wiring mistake, and it throws, naming the type, so the process refuses to boot.
 */
export function buildHandlerTable(declared: DeclaredMethod[], jobTypes: readonly string[]): Map<string, RegisteredHandler> {
  const table = tableOf(declared);
  const known = new Set(jobTypes);
  const unknown = [...table.values()].find((h) => !known.has(h.jobType));
  if (unknown) throw new Error(`Job type "${unknown.jobType}" has a handler but is not one of the service's job types`);
  const orphans = jobTypes.filter((t) => !table.has(t));
  if (orphans.length > 0) throw new Error(`Job type${orphans.length > 1 ? 's' : ''} ${orphans.map((t) => `"${t}"`).join(', ')} ha${orphans.length > 1 ? 've' : 's'} no handler`);
  return table;
}

function tableOf(declared: DeclaredMethod[]): Map<string, RegisteredHandler> {
  const table = new Map<string, RegisteredHandler>();
  const owners = new Map<string, string>();
  const hooks = declared.filter((d) => d.kind === 'failure-hook');
  for (const d of declared.filter((x) => x.kind === 'handler')) {
    const taken = owners.get(d.jobType);
    if (taken) throw new Error(`Job type "${d.jobType}" has two handlers: ${taken} and ${d.owner}`);
    owners.set(d.jobType, d.owner);
    table.set(d.jobType, { jobType: d.jobType, run: d.fn as JobHandlerFn });
  }
  const hookOwners = new Map<string, string>();
  for (const h of hooks) {
    const entry = table.get(h.jobType);
    if (!entry) throw new Error(`Failure hook ${h.owner} is for job type "${h.jobType}", which has no handler`);
    const taken = hookOwners.get(h.jobType);
    if (taken) throw new Error(`Job type "${h.jobType}" has two failure hooks: ${taken} and ${h.owner}`);
    hookOwners.set(h.jobType, h.owner);
    entry.onFailed = h.fn as JobFailureHookFn;
  }
  return table;
}

/** Finds every `@JobHandler` / `@OnJobFailed` method on the application's providers at boot. */
@Injectable()
export class JobHandlerRegistry extends HandlerLookup implements OnModuleInit {
  private readonly logger = new Logger('Jobs');
  private table = new Map<string, RegisteredHandler>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(JOB_TYPES) private readonly serviceJobTypes: readonly string[],
  ) {
    super();
  }

  onModuleInit(): void {
    this.table = buildHandlerTable(this.discover(), this.serviceJobTypes);
    this.logger.log({ msg: 'job handlers registered', job_types: [...this.table.keys()].sort() });
  }

  handlerFor(jobType: string): RegisteredHandler | undefined {
    return this.table.get(jobType);
  }

  jobTypes(): string[] {
    return [...this.table.keys()];
  }

  private discover(): DeclaredMethod[] {
    const found: DeclaredMethod[] = [];
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      // Request-scoped providers have no instance at boot; useExisting aliases repeat an instance.
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic() || seen.has(instance)) continue;
      seen.add(instance);
      const owner = instance.constructor?.name ?? String(wrapper.name);
      for (const name of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const method = instance[name] as DeclaredMethod['fn'];
        const handles = this.reflector.get<string | undefined>(JOB_HANDLER_KEY, method);
        const hooks = this.reflector.get<string | undefined>(JOB_FAILURE_HOOK_KEY, method);
        const fn = method.bind(instance);
        if (handles) found.push({ kind: 'handler', jobType: handles, owner: `${owner}.${name}`, fn });
        if (hooks) found.push({ kind: 'failure-hook', jobType: hooks, owner: `${owner}.${name}`, fn });
      }
    }
    return found;
  }
}
