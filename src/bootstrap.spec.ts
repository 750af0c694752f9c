import { afterEach, describe, expect, it, jest } from '@jest/globals';
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { startOrExit } from './bootstrap.js';
import { JOB_TYPES, JobHandlerRegistry } from './platform/queue/handler-registry.js';
import { JobHandler } from './platform/queue/job-handler.decorator.js';

@Injectable()
class ImageJobs {
  @JobHandler('generate_image')
  async generate(): Promise<void> {}
}

/** A process boot whose job types include one without a handler. */
async function bootWithOrphanJobType(): Promise<void> {
  @Module({ imports: [DiscoveryModule], providers: [ImageJobs, JobHandlerRegistry, { provide: JOB_TYPES, useValue: ['generate_image', 'generate_week'] }] })
  class Root {}
  const app = await NestFactory.createApplicationContext(Root, { logger: false, abortOnError: false });
  await app.close();
}

describe('startOrExit', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('stops a boot whose job type has no handler with exit code 1 and one line naming the type', async () => {
    const written: string[] = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const exit = jest.fn<(code: number) => void>();
    await startOrExit('worker', bootWithOrphanJobType, exit);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(1);
    const lines = written.join('').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'error', msg: 'worker failed to start', err: 'Job type "generate_week" has no handler' });
  });

  it('lets a boot that succeeds run on', async () => {
    const exit = jest.fn<(code: number) => void>();
    await startOrExit('api', async () => undefined, exit);
    expect(exit).not.toHaveBeenCalled();
  });
});
