import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { loadConfigOrExit, logLine, startOrExit } from './bootstrap.js';
import { JsonLogger } from './platform/logging/index.js';

/** The worker process: the same modules with queue consumers on and no HTTP server. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, 'worker'), {
    logger: new JsonLogger(config.logLevel),
    abortOnError: false,
  });
  app.enableShutdownHooks();
  // Always printed, whatever the log level: tests and operators wait for it.
  logLine('info', { msg: 'worker ready' });
}

void startOrExit('worker', main);
