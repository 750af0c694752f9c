import { beforeAll, describe, expect, it } from '@jest/globals';
import 'reflect-metadata';
import { Injectable, Logger, Module } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import type { Tx } from '../database/index.js';
import { buildHandlerTable, JOB_TYPES, JobHandlerRegistry, type DeclaredMethod } from './handler-registry.js';
import { JobHandler, OnJobFailed } from './job-handler.decorator.js';
import type { JobContext, JobRecord } from './job.types.js';

@Injectable()
class ImageJobs {
  readonly name = 'image jobs';
  @JobHandler('generate_image')
  async generate(ctx: JobContext): Promise<Record<string, unknown>> {
    return { by: this.name, job: ctx.job.id };
  }

  @OnJobFailed('generate_image')
  async refund(_tx: Tx, job: JobRecord): Promise<void> {
    this.refunded.push(job.id);
  }

  readonly refunded: string[] = [];
}

@Injectable()
class OtherImageJobs {
  @JobHandler('generate_image')
  async generate(): Promise<void> {}
}

@Injectable()
class WeekJobs {
  @JobHandler('generate_week')
  async plan(): Promise<void> {}
}

const SERVICE_TYPES = ['generate_image', 'generate_week'];

async function boot(jobTypes: string[], ...providers: Array<new (...args: never[]) => unknown>) {
  @Module({ imports: [DiscoveryModule], providers: [...providers, JobHandlerRegistry, { provide: JOB_TYPES, useValue: jobTypes }] })
  class TestModule {}
  return NestFactory.createApplicationContext(TestModule, { logger: false, abortOnError: false });
}

const fn = async () => undefined;
const declared = (kind: DeclaredMethod['kind'], jobType: string, owner: string): DeclaredMethod => ({ kind, jobType, owner, fn });

describe('job handler registry', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('finds decorated provider methods at boot, bound to their instance, with their failure hook', async () => {
    const app = await boot(SERVICE_TYPES, ImageJobs, WeekJobs);
    const registry = app.get(JobHandlerRegistry);
    expect(registry.jobTypes().sort()).toEqual(['generate_image', 'generate_week']);
    const image = registry.handlerFor('generate_image')!;
    const job = { id: 'job_1' } as JobRecord;
    await expect(image.run({ job, progress: async () => undefined, signal: new AbortController().signal })).resolves.toEqual({ by: 'image jobs', job: 'job_1' });
    await image.onFailed!({} as Tx, job);
    expect(app.get(ImageJobs).refunded).toEqual(['job_1']);
    expect(registry.handlerFor('generate_week')!.onFailed).toBeUndefined();
    expect(registry.handlerFor('unknown')).toBeUndefined();
    await app.close();
  });

  it('refuses to boot when a job type has two handlers, naming both', async () => {
    await expect(boot(SERVICE_TYPES, ImageJobs, OtherImageJobs, WeekJobs)).rejects.toThrow(
      'Job type "generate_image" has two handlers: ImageJobs.generate and OtherImageJobs.generate',
    );
  });

  it('refuses to boot when a job type of the service has no handler, naming it', async () => {
    await expect(boot(SERVICE_TYPES, ImageJobs)).rejects.toThrow('Job type "generate_week" has no handler');
    expect(() => buildHandlerTable([declared('handler', 'a', 'A.run')], ['a', 'b', 'c'])).toThrow('Job types "b", "c" have no handler');
  });

  it('refuses a handler of a type the service does not declare', async () => {
    await expect(boot(['generate_week'], ImageJobs, WeekJobs)).rejects.toThrow(
      'Job type "generate_image" has a handler but is not one of the service\'s job types',
    );
  });

  it('refuses two failure hooks for one type, and a failure hook without a handler', () => {
    expect(() =>
      buildHandlerTable([declared('handler', 'a', 'A.run'), declared('failure-hook', 'a', 'A.f1'), declared('failure-hook', 'a', 'B.f2')], ['a']),
    ).toThrow('Job type "a" has two failure hooks: A.f1 and B.f2');
    expect(() => buildHandlerTable([declared('failure-hook', 'b', 'B.f')], ['b'])).toThrow(
      'Failure hook B.f is for job type "b", which has no handler',
    );
  });

  it('accepts a failure hook declared before its handler', () => {
    const table = buildHandlerTable([declared('failure-hook', 'a', 'A.f'), declared('handler', 'a', 'A.run')], ['a']);
    expect(table.get('a')?.onFailed).toBe(fn);
  });
});
