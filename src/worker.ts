import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { loadConfigOrExit } from './bootstrap.js';
import { JsonLogger } from './platform/logging/index.js';

/** The worker process: the same modules with queue consumers on and no HTTP server. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, 'worker'), {
    logger: new JsonLogger(config.logLevel),
  });
  app.enableShutdownHooks();
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'worker ready' })}\n`);
}

void main();
