import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import { AppConfig } from './config/index.js';
import { ERROR_STATUS } from './error-codes.js';
import { API_PREFIX, buildOpenApiDocument } from './platform/http/index.js';
import { buildAsyncApiDocument, type AsyncApiDocument } from './platform/realtime/asyncapi.js';

/** Where the API serves its documents (with API_DOCS_ENABLED), outside the /api/v1 prefix. */
export const DOCS_UI_PATH = 'api/docs';
export const OPENAPI_JSON_PATH = 'api/docs-json';
export const ASYNCAPI_JSON_PATH = 'api/docs-asyncapi.json';

/** The HTTP API (OpenAPI 3) and the socket (AsyncAPI 3) of one application. */
export interface ApiDocuments {
  openapi: OpenAPIObject;
  asyncapi: AsyncApiDocument;
}

/** Both documents; the socket's payload schemas are the OpenAPI document's. */
export function buildApiDocuments(app: INestApplication): ApiDocuments {
  const openapi = buildOpenApiDocument(app, ERROR_STATUS);
  return { openapi, asyncapi: buildAsyncApiDocument(openapi.components?.schemas ?? {}) };
}

/**
 * Serves the Swagger UI, the OpenAPI JSON and the AsyncAPI JSON, built on first request. They are
 * routes of the HTTP server, not Nest controllers (as Swagger's own are), so they answer without
 * credentials and the access guard and route audit do not see them; nothing they answer is private.
 */
export function serveApiDocs(app: INestApplication): void {
  let built: ApiDocuments | undefined;
  const documents = (): ApiDocuments => (built ??= buildApiDocuments(app));
  SwaggerModule.setup(DOCS_UI_PATH, app, () => documents().openapi, { jsonDocumentUrl: OPENAPI_JSON_PATH });
  const http = app.getHttpAdapter();
  http.get(`/${ASYNCAPI_JSON_PATH}`, (_req: unknown, res: unknown) => http.reply(res, documents().asyncapi, 200));
}

/**
 * The API application in Nest's preview mode: its modules, controllers and routes, with no provider
 * instantiated, so no database, Redis or secret is needed. What the documents and the route checks
 * read is metadata, the same as the running API's. The secrets are throwaway: nothing uses them.
 */
export async function createDocumentedApp(): Promise<INestApplication> {
  const throwaway = () => randomBytes(32).toString('base64url');
  const config = new AppConfig({ JWT_SECRET: throwaway(), TOKEN_ENCRYPTION_KEY: throwaway() });
  const app = await NestFactory.create(AppModule.forRoot(config, 'api'), { preview: true, logger: false, bodyParser: false, abortOnError: false });
  app.setGlobalPrefix(API_PREFIX);
  return app;
}

/** Writes openapi.json and asyncapi.json into `dir` (made if missing); answers the files written. */
export async function writeApiDocuments(dir: string): Promise<string[]> {
  const app = await createDocumentedApp();
  try {
    const docs = buildApiDocuments(app);
    await mkdir(dir, { recursive: true });
    const files = [join(dir, 'openapi.json'), join(dir, 'asyncapi.json')];
    await writeFile(files[0], `${JSON.stringify(docs.openapi, null, 2)}\n`);
    await writeFile(files[1], `${JSON.stringify(docs.asyncapi, null, 2)}\n`);
    return files;
  } finally {
    await app.close();
  }
}
