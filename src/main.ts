import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { WsAdapter } from '@nestjs/platform-ws';
import express from 'express';
import helmet from 'helmet';
import { buildApiDocuments, serveApiDocs } from './api-documents.js';
import { AppModule } from './app.module.js';
import { loadConfigOrExit, logLine, startOrExit, stopOnSignals } from './bootstrap.js';
import type { AppConfig } from './config/index.js';
import { ERROR_STATUS } from './error-codes.js';
import { PLATFORM_WEBHOOK_PATHS } from './modules/engagement/index.js';
import { McpTools } from './modules/mcp/index.js';
import { assertEveryRouteDeclared } from './platform/auth/route-audit.js';
import { HttpDrain, ProcessLifecycle } from './platform/lifecycle/index.js';
import {
  API_PREFIX, AppExceptionFilter, assertErrorCodesKnown, jsonDepthGuard, LeanExpressAdapter, noStore, outsideApiNotFound, requestId, strictValidationPipe, webhookPrecheck,
} from './platform/http/index.js';
import { accessLog, JsonLogger } from './platform/logging/index.js';
import { httpMetrics, Metrics } from './platform/metrics/index.js';
import { mountQueueBoard } from './platform/metrics/queue-board.js';

/** `drain` counts the requests in flight, so that a stop can wait for them (see main). */
export async function createApi(config: AppConfig, drain = new HttpDrain()): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, 'api'), new LeanExpressAdapter({ routePrefix: API_PREFIX }), {
    logger: new JsonLogger(config.logLevel),
    bodyParser: false,
  });
  // Deny by default: refuse to start if any route lacks an access declaration.
  assertEveryRouteDeclared(app);
  // Likewise if a route documents an error code the status map lacks.
  assertErrorCodesKnown(app, ERROR_STATUS);
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // Answers are Cache-Control: no-store (noStore), so a client holds nothing an ETag could revalidate;
  // routes that are cacheable (public branding) set their own.
  app.set('etag', false);
  app.use(drain.track);
  app.use(requestId);
  app.use(accessLog);
  app.use(httpMetrics(app.get(Metrics)));
  app.use(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"] } } }));
  const errors = new AppExceptionFilter(ERROR_STATUS);
  // Provider webhooks are verified over their exact bytes, and a training object with its logs runs
  // past 1 MiB: their signature headers are checked first, so only a plausible delivery is read.
  // Stripe signs with its own header; its events are small.
  app.use(`/${API_PREFIX}/webhooks/stripe`, webhookPrecheck(errors, { scheme: 'stripe' }), express.raw({ type: () => true, limit: '1mb' }));
  // Instagram and X sign comments and direct messages with their own headers; their deliveries are small too.
  app.use(`/${API_PREFIX}/webhooks/instagram`, webhookPrecheck(errors, { scheme: 'hub' }), express.raw({ type: () => true, limit: '1mb' }));
  app.use(`/${API_PREFIX}/webhooks/x`, webhookPrecheck(errors, { scheme: 'x' }), express.raw({ type: () => true, limit: '1mb' }));
  // `/webhooks/endpoints` is not a provider's delivery: the outbound webhook routes take JSON like any other.
  const outbound = (path: string) => path === '/endpoints' || path.startsWith('/endpoints/') || path.startsWith('/endpoints?');
  app.use(
    `/${API_PREFIX}/webhooks`,
    webhookPrecheck(errors, { except: ['/stripe', '/endpoints', ...PLATFORM_WEBHOOK_PATHS] }),
    express.raw({ type: (req) => !outbound(req.url ?? ''), limit: '10mb' }),
  );
  app.use(express.json({ limit: '1mb' }));
  app.use(jsonDepthGuard);
  app.use(express.urlencoded({ extended: false, limit: '64kb' }));
  app.enableCors({ origin: config.corsOrigins, credentials: true, exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed'] });
  app.use(`/${API_PREFIX}`, noStore);
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalFilters(errors);
  // Before init, so that it comes before Nest's routes and their not-found answer.
  mountQueueBoard(app, errors);
  app.useGlobalPipes(strictValidationPipe());
  app.useWebSocketAdapter(new WsAdapter(app));

  if (config.apiDocsEnabled) serveApiDocs(app);
  // The MCP tools' input schemas are read from this application's own OpenAPI document.
  app.get(McpTools).documentFrom(() => buildApiDocuments(app).openapi);
  // Routes are mounted by init; the JSON 404 for everything else must come after them.
  await app.init();
  const server: express.Express = app.getHttpAdapter().getInstance();
  server.use(outsideApiNotFound(errors));
  drain.attach(app.getHttpServer());
  return app;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const drain = new HttpDrain();
  const app = await createApi(config, drain);
  await app.listen(config.port, config.host);
  const server: Server = app.getHttpServer();
  const lifecycle = app.get(ProcessLifecycle);
  // Refuse new connections first (open keep-alive connections stay, for a request already sent); then, at once and side by side: sockets close with 1001, job
  // consumers stop taking jobs and drain, in-flight requests are answered. Nest's hooks close the rest.
  stopOnSignals('api', config, [
    { name: 'stop accepting', run: async () => drain.stop(server) },
    { name: 'drain requests', run: ({ releaseAt }) => { lifecycle.begin(releaseAt); return drain.settled(server, releaseAt); } },
    { name: 'drain jobs and sockets', run: () => lifecycle.stopped() },
    { name: 'close', run: () => app.close() },
  ]);
  const { port } = server.address() as AddressInfo;
  // Always printed, whatever the log level: tests and operators read the bound port from it.
  logLine('info', { msg: 'api listening', port });
}

void startOrExit('api', main);
