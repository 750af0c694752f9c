/**
 * Builds the real application's API documents the way the API does, and writes them with what they
 * are checked against (the routes the HTTP server mounts, the error status map, the realtime event
 * catalogue) to the JSON file named by its argument. Run from dist by the api-documents e2e: the
 * application loads @nestjs/throttler, CommonJS requiring Nest's ES modules, which Node loads and
 * Jest's module loader cannot before Node 24.9.
 */
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { WsAdapter } from '@nestjs/platform-ws';
import { buildApiDocuments, createDocumentedApp, type ApiDocuments } from '../../src/api-documents.js';
import { ERROR_STATUS } from '../../src/error-codes.js';
import { EVENT_READ_SCOPES } from '../../src/platform/realtime/event-access.js';
import { REALTIME_EVENT_TYPES, REALTIME_EVENTS } from '../../src/platform/realtime/realtime.catalogue.js';

export interface ApiDocumentsProbe {
  docs: ApiDocuments;
  /** `GET /api/v1/characters/{id}`: every method and path the HTTP server routes. */
  served: string[];
  errorStatus: Record<string, number>;
  eventReadScopes: Record<string, unknown>;
  eventTypes: readonly string[];
  events: Record<string, { field: string; schema: string }>;
}

/** `/a/:id/*key` → `/a/{id}/{key}`: Express route syntax to OpenAPI's. */
function openApiPath(expressPath: string): string {
  return expressPath.replace(/[:*](\w+)/g, '{$1}');
}

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** What the HTTP server routes once Nest has mounted the controllers: method and path of each. */
async function servedRoutes(): Promise<string[]> {
  const app = (await createDocumentedApp()) as NestExpressApplication;
  try {
    app.useWebSocketAdapter(new WsAdapter(app));
    await app.init();
    const stack = (app.getHttpAdapter().getInstance() as { router: { stack: ExpressLayer[] } }).router.stack;
    return stack.flatMap((layer) =>
      layer.route ? Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${openApiPath(layer.route!.path)}`) : [],
    );
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: api-documents-probe <out.json>');
  const app = await createDocumentedApp();
  let docs: ApiDocuments;
  try {
    docs = buildApiDocuments(app);
  } finally {
    await app.close();
  }
  const probe: ApiDocumentsProbe = {
    docs,
    served: await servedRoutes(),
    errorStatus: ERROR_STATUS,
    eventReadScopes: EVENT_READ_SCOPES,
    eventTypes: REALTIME_EVENT_TYPES,
    events: REALTIME_EVENTS,
  };
  await writeFile(out, JSON.stringify(probe));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`api documents probe failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
