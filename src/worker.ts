import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { loadConfigOrExit, logLine, startOrExit, stopOnSignals } from './bootstrap.js';
import { ProcessLifecycle } from './platform/lifecycle/index.js';
import { JsonLogger } from './platform/logging/index.js';

/** The worker process: the same modules with queue consumers on and no HTTP server. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, 'worker'), {
    logger: new JsonLogger(config.logLevel),
    abortOnError: false,
  });
  const lifecycle = app.get(ProcessLifecycle);
  // Stop taking jobs, let the running ones finish until the release point, release the rest; then Nest's hooks close the rest.
  stopOnSignals('worker', config, [
    { name: 'drain jobs', run: ({ releaseAt }) => { lifecycle.begin(releaseAt); return lifecycle.stopped(); } },
    { name: 'close', run: () => app.close() },
  ]);
  // Always printed, whatever the log level: tests and operators wait for it.
  logLine('info', { msg: 'worker ready' });
}

void startOrExit('worker', main);
