import type { INestApplication, Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import {
  DocumentBuilder, SwaggerModule, type HeaderObject, type OpenAPIObject, type OperationObject, type ReferenceObject, type ResponseObject,
} from '@nestjs/swagger';
import { PLAN_LIMITS, PLANS, type ErrorCode } from '../../core/index.js';
import { ACCESS_KEY, type AccessRule } from '../auth/access.decorator.js';
import { assertErrorCodesKnown, declaredErrorCodes, ErrorBody, groupErrorCodes } from './api-docs.js';
import { controllersOf, methodsOf } from './controllers.js';
import { API_PREFIX } from './edge.js';
import type { ErrorStatusMap } from './error-status.js';
import { aliasOperationId, type ClassType, closeInputSchemas, defaultOperationId, fixNullableTypes, typeIntegerParameters, typeIntegers } from './openapi-rules.js';

/** The window a route's requests are counted in: per workspace by plan, or per client address for sign-in. */
export type RateLimitPolicy = 'plan' | 'auth';

/** One controller method that serves a route, with what the documentation reads from it. */
interface RouteHandler {
  controller: Type;
  name: string;
  handler: object;
  rule: AccessRule | undefined;
}

/** Where `@ApiOperation()` keeps its options (`@nestjs/swagger`'s DECORATORS.API_OPERATION, not exported). */
const API_OPERATION_KEY = 'swagger/apiOperation';
/** Where `@ApiProduces()` keeps its media types (DECORATORS.API_PRODUCES). */
const API_PRODUCES_KEY = 'swagger/apiProduces';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const RATE_LIMITED = 429;
const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/**
 * Which window counts a route's requests, as the global guard applies it (contract §3): every
 * authenticated route per workspace, an open route only when it asks for the sign-in limit.
 */
export function rateLimitPolicyOf(rule: AccessRule | undefined): RateLimitPolicy | undefined {
  if (!rule) return undefined;
  if (rule.surface === 'open') return rule.authLimit ? 'auth' : undefined;
  return 'plan';
}

/** The refusals the guard itself answers for a rule, so no route has to list them by hand. */
export function accessErrorCodes(rule: AccessRule | undefined): ErrorCode[] {
  if (!rule) return [];
  const limited: ErrorCode[] = rateLimitPolicyOf(rule) ? ['rate_limited'] : [];
  if (rule.surface === 'open') return limited;
  if (rule.surface === 'public') return ['unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', ...limited];
  return [
    'unauthorized', 'session_required', ...limited,
    ...(rule.roles ? (['forbidden'] as const) : []),
    ...(rule.plans ? (['plan_required'] as const) : []),
  ];
}

/**
 * The OpenAPI document of the application, built from its controllers' metadata alone (no instance
 * is used, so a preview application without a database documents the same). On top of what Swagger
 * reads it writes, per operation, one error response per status listing the route's codes once each
 * (its controller's `ApiErrors`, its own, and the refusals its access rule implies), and on every
 * rate-limited route the 429 with its headers and the rate-limit headers of its successful answers.
 * Error responses are replaced, never merged, so building twice, or two applications in one process,
 * cannot double a description.
 */
export function buildOpenApiDocument(app: INestApplication, statuses: ErrorStatusMap): OpenAPIObject {
  assertErrorCodesKnown(app, statuses);
  const doc = SwaggerModule.createDocument(app, documentHead(), {
    extraModels: [ErrorBody],
    operationIdFactory: (controller, method) => `${controller}_${method}`,
  });
  const handlers = routeHandlers(app);
  const handwritten: string[] = [];
  /** How many paths of each handler were named so far: the first keeps the id, the others are aliases. */
  const pathsSeen = new Map<string, number>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const route = handlerOf(operation, handlers, `${method.toUpperCase()} ${path}`);
      handwritten.push(...errorStatusesOf(operation).map((s) => `${s} on ${method.toUpperCase()} ${path}`));
      documentRoute(operation, route, statuses, method);
      nameOperation(operation, route, path, pathsSeen);
      documentProducedBodies(operation, route);
      if (isOpen(route.rule)) operation.security = [];
      typeIntegerParameters(operation, argumentTypesOf(route));
    }
  }
  if (handwritten.length > 0) {
    throw new Error(`error responses written by hand (declare the codes with @ApiErrors instead): ${handwritten.join(', ')}`);
  }
  finishComponents(doc, statuses);
  typeIntegers(doc);
  fixNullableTypes(doc);
  closeInputSchemas(doc);
  declareTags(doc);
  return relativeToServer(doc);
}

/**
 * A success a handler writes itself (bytes, a page) has no schema for Swagger to read: the media
 * types of its `@ApiProduces()` become its content, as a string (binary unless text).
 */
function documentProducedBodies(operation: OperationObject, route: RouteHandler): void {
  const produces = Reflect.getMetadata(API_PRODUCES_KEY, route.handler) as string[] | undefined;
  if (!produces?.length) return;
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!/^2\d\d$/.test(status) || status === '204' || !response || isReference(response) || response.content) continue;
    response.content = Object.fromEntries(produces.map((type) => [type, { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } }]));
  }
}

/** Open routes (`@Open()`) ask for no credentials: `security: []` overrides any default. */
function isOpen(rule: AccessRule | undefined): boolean {
  return rule?.surface === 'open';
}

/** The DTO classes a route's handler takes (body, query, params), as TypeScript emitted them. */
function argumentTypesOf(route: RouteHandler): ClassType[] {
  const types = (Reflect.getMetadata('design:paramtypes', route.controller.prototype, route.name) ?? []) as unknown[];
  return types.filter((t): t is ClassType => typeof t === 'function' && t !== Object && t !== String && t !== Number);
}

/**
 * The operation's id: the one `@ApiOperation({ operationId })` gives, else `defaultOperationId`;
 * a route served at several paths keeps it on the first and names the others after their path.
 */
function nameOperation(operation: OperationObject, route: RouteHandler, path: string, pathsSeen: Map<string, number>): void {
  const explicit = explicitOperationId(route.handler);
  const key = `${route.controller.name}.${route.name}`;
  const index = pathsSeen.get(key) ?? 0;
  pathsSeen.set(key, index + 1);
  operation.operationId = aliasOperationId(explicit ?? defaultOperationId(route.controller.name, route.name), path, index);
}

function explicitOperationId(handler: object): string | undefined {
  return (Reflect.getMetadata(API_OPERATION_KEY, handler) as { operationId?: string } | undefined)?.operationId;
}

/** A description per tag (one per context); the document declares every tag its operations use. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  admin: 'Platform administration: workspaces, plans, credits, self-hosted inference routing.',
  analytics: 'Published posts\' metrics and follower counts.',
  'api-keys': 'Agency API keys and their scopes.',
  auth: 'Accounts: registration, sign-in, sessions, email, password, two-factor, data rights.',
  billing: 'Plans, subscriptions, invoices, credits and their ledger.',
  branding: 'White-label branding served to a custom domain.',
  characters: 'AI characters (personas) of a workspace and their reference images.',
  content: 'Generated posts, their variants, videos, queue and calendar.',
  development: 'Development helpers (the dev mailbox); absent in production.',
  engagement: 'The comment and DM responder: its settings, conversations with the audience, replies.',
  health: 'Liveness and readiness.',
  integrations: 'Connections to social platforms (OAuth).',
  invitations: 'Invitations a user received to join a workspace.',
  jobs: 'Background jobs and their progress.',
  lora: 'LoRA training of a character\'s likeness.',
  marketplace: 'Character listings, purchases and reviews.',
  mcp: 'The Model Context Protocol server: the agency API as tools for AI agents (API keys).',
  media: 'Stored media, by signed key.',
  moderation: 'Approving and rejecting generated content.',
  monetization: 'Affiliate links and their public redirect, click counts, revenue entries and the revenue summary.',
  'motion-transfer': 'Motion transfer videos of a character.',
  operator: 'Operator endpoints: metrics and the queue board.',
  organizations: 'Workspaces (organizations), members, branding and audit log.',
  public: 'The agency API (API keys): characters, generation, publishing, credits.',
  schedule: 'Publishing schedule and history.',
  'talking-head': 'Talking-head videos of a character.',
  voice: 'Voices, voice clones and speech.',
  webhooks: 'Webhooks: received from providers (payments, training) and platforms (comments, messages), and sent to integrators.',
};

function declareTags(doc: OpenAPIObject): void {
  const used = new Set<string>();
  for (const item of Object.values(doc.paths)) for (const m of HTTP_METHODS) for (const t of item[m]?.tags ?? []) used.add(t);
  doc.tags = [...used].sort().map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
}

/** The server is the API's prefix, and the paths are relative to it (`/characters`, not `/api/v1/characters`). */
function relativeToServer(doc: OpenAPIObject): OpenAPIObject {
  const prefix = `/${API_PREFIX}`;
  doc.servers = [{ url: prefix, description: 'This deployment (relative to its public URL).' }];
  doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path, item]));
  return doc;
}

function documentHead(): Omit<OpenAPIObject, 'paths'> {
  const head = new DocumentBuilder()
    .setTitle('Persona Studio API')
    .setDescription(describeApi())
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Session access token' })
    .addSecurity('api_key', { type: 'http', scheme: 'bearer', description: 'Agency API key (psk_...)' })
    .build();
  // The API is proprietary: there is no licence text to link and no SPDX identifier for it.
  head.info.license = { name: 'Proprietary' };
  return head;
}

/** The document's description: the two rules every route shares, said once. */
function describeApi(): string {
  const plans = PLANS.map((p) => `${p} ${PLAN_LIMITS[p].requestsPerMinute}`).join(', ');
  return [
    'AI personas, their content, publishing and marketplace. Real-time events: the socket at /api/v1/ws, described by the AsyncAPI document at /api/docs-asyncapi.json.',
    '',
    'Errors: every failure answers one body, ErrorBody (`statusCode`, `code`, `message`, optional `details`, `request_id`). Each operation lists the codes it can answer under their status, each code once.',
    '',
    `Rate limits: every authenticated route counts against its workspace in a fixed window (requests per minute by plan: ${plans}; the window is 60 s unless the deployment sets another), shared by all the workspace's users and keys.`,
    'Register, login and refresh count per client address instead (policy "auth"), and login also per email after repeated failures.',
    'A limited route answers `RateLimit-Policy` (`"plan";q=<limit>;w=<window seconds>`), `RateLimit` (`"plan";r=<remaining>;t=<seconds to reset>`),',
    '`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; past the limit it answers 429 `rate_limited` with `Retry-After` (seconds).',
  ].join('\n');
}

/** Every routed controller method by the operation id Swagger gives it (`Controller_method`). */
function routeHandlers(app: INestApplication): Map<string, RouteHandler> {
  const found = new Map<string, RouteHandler>();
  for (const controller of controllersOf(app)) {
    for (const { name, handler } of methodsOf(controller)) {
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const id = `${controller.name}_${name}`;
      if (found.has(id)) throw new Error(`two controllers are named ${controller.name}: their operations cannot be told apart`);
      const rule = (Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, controller)) as AccessRule | undefined;
      found.set(id, { controller, name, handler, rule });
      // Swagger names an operation with an explicit operationId by it instead.
      const explicit = explicitOperationId(handler);
      if (explicit) {
        if (found.has(explicit)) throw new Error(`two routes have the operationId ${explicit}`);
        found.set(explicit, { controller, name, handler, rule });
      }
    }
  }
  return found;
}

/** The handler of an operation; a route served on several paths gets `method[index]` ids. */
function handlerOf(operation: OperationObject, handlers: Map<string, RouteHandler>, label: string): RouteHandler {
  const id = (operation.operationId ?? '').replace(/\[\d+\]$/, '');
  const route = handlers.get(id);
  if (!route) throw new Error(`no controller method found for ${label} (operation ${operation.operationId})`);
  return route;
}

/** The error statuses Swagger found on an operation before this module wrote any. */
function errorStatusesOf(operation: OperationObject): string[] {
  return Object.keys(operation.responses).filter((status) => Number(status) >= 400);
}

/** Methods that carry a body: the body parser refuses one past its limit (413) on any of them. */
const BODY_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

function documentRoute(operation: OperationObject, route: RouteHandler, statuses: ErrorStatusMap, method: string): void {
  const policy = rateLimitPolicyOf(route.rule);
  if (policy) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (isSuccess(status) && response && !isReference(response)) response.headers = { ...response.headers, ...rateLimitHeaders(false) };
    }
  }
  const bodyLimit: ErrorCode[] = BODY_METHODS.has(method) || operation.requestBody ? ['payload_too_large'] : [];
  const codes = [...declaredErrorCodes(route.controller, route.handler), ...accessErrorCodes(route.rule), ...bodyLimit];
  for (const { status, codes: answered } of groupErrorCodes(codes, statuses)) {
    operation.responses[String(status)] = errorResponse(answered, status === RATE_LIMITED);
  }
}

function errorResponse(codes: ErrorCode[], rateLimited: boolean): ResponseObject {
  return {
    description: codes.join(' | '),
    ...(rateLimited ? { headers: rateLimitHeaders(true) } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  };
}

/** References to the shared header definitions; a 429 adds Retry-After. */
function rateLimitHeaders(refused: boolean): Record<string, ReferenceObject> {
  const names: string[] = [...RATE_LIMIT_HEADERS, ...(refused ? ['Retry-After'] : [])];
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function isSuccess(status: string): boolean {
  const n = Number(status);
  return n >= 200 && n < 400;
}

function isReference(value: ResponseObject | ReferenceObject): value is ReferenceObject {
  return '$ref' in value;
}

/** The rate-limit header definitions, and the error status map's codes as ErrorBody.code's enum. */
function finishComponents(doc: OpenAPIObject, statuses: ErrorStatusMap): void {
  const components = (doc.components ??= {});
  components.headers = { ...components.headers, ...HEADER_DEFINITIONS };
  const errorBody = components.schemas?.[ErrorBody.name];
  const properties = errorBody && !('$ref' in errorBody) ? errorBody.properties : undefined;
  if (!properties) throw new Error('the OpenAPI document lacks the ErrorBody schema');
  properties.code = { ...properties.code, enum: Object.keys(statuses) };
  properties.statusCode = { ...properties.statusCode, type: 'integer' };
  // validation_failed lists each refused field (see validation.ts); other codes may add an object of facts.
  properties.details = {
    description: 'Extra facts. For validation_failed, a list of {field, message}, one per refused field; for other codes, an object (for example retry_after).',
    anyOf: [
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'message'],
          additionalProperties: false,
          properties: { field: { type: 'string', example: 'name' }, message: { type: 'string', example: 'name must be a string' } },
        },
      },
      { type: 'object', additionalProperties: true },
    ],
  };
}

const integer = (description: string, example: number): HeaderObject => ({ description, schema: { type: 'integer', example } });

const HEADER_DEFINITIONS: Record<string, HeaderObject> = {
  'RateLimit-Policy': {
    description: 'The limit that applies: `"plan";q=<requests>;w=<window seconds>` per workspace, or `"auth";q=<requests>;w=60` per client address on sign-in routes.',
    schema: { type: 'string', example: '"plan";q=60;w=60' },
  },
  RateLimit: {
    description: 'What is left of it: `"<policy>";r=<remaining requests>;t=<seconds until the window resets>`.',
    schema: { type: 'string', example: '"plan";r=59;t=42' },
  },
  'X-RateLimit-Limit': integer('Requests allowed in the window.', 60),
  'X-RateLimit-Remaining': integer('Requests left in the window.', 59),
  'X-RateLimit-Reset': integer('Seconds until the window resets.', 42),
  'Retry-After': { ...integer('Seconds to wait before the next request can succeed.', 42), required: true },
};
