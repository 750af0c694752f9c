import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { loadConfigOrExit } from './bootstrap.js';
import { JsonLogger } from './platform/logging/index.js';

function line(level: string, fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, ...fields })}\n`);
}

/** The worker process: the same modules with queue consumers on and no HTTP server. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, 'worker'), {
    logger: new JsonLogger(config.logLevel),
    abortOnError: false,
  });
  app.enableShutdownHooks();
  // Always printed, whatever the log level: tests and operators wait for it.
  line('info', { msg: 'worker ready' });
}

main().catch((err: unknown) => {
  // A wiring mistake (e.g. two handlers for one job type) must stop the worker with a readable reason.
  line('error', { msg: 'worker failed to start', err: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
