import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { EVENT_READ_SCOPES, SOCKET_REFUSALS } from './event-access.js';
import { REALTIME_EVENT_TYPES, REALTIME_EVENTS, type RealtimeEventType } from './realtime.catalogue.js';
import { HEARTBEAT_MS, MAX_MESSAGE_BYTES, SOCKET_PATH } from './realtime.gateway.js';
import { AUTH_TIMEOUT_MS, FORBIDDEN_CLOSE, INTERNAL_ERROR_CLOSE, MAX_TOKEN_LENGTH, UNAUTHORIZED_CLOSE } from './socket-session.js';

/** A JSON Schema (draft 07, the AsyncAPI default schema format). */
export type JsonSchema = { [keyword: string]: unknown };

export interface AsyncApiMessage {
  name: string;
  title: string;
  summary: string;
  contentType: 'application/json';
  payload: JsonSchema;
}

type Ref = { $ref: string };

interface AsyncApiOperation {
  action: 'send' | 'receive';
  channel: Ref;
  summary: string;
  messages: Ref[];
  reply?: { channel: Ref; messages: Ref[] };
}

/** The AsyncAPI 3.0 document of the socket: only the parts this service uses. */
export interface AsyncApiDocument {
  asyncapi: '3.0.0';
  info: { title: string; version: string; description: string };
  servers: Record<string, { host: string; protocol: string; description: string; variables: Record<string, { default: string; description: string }> }>;
  channels: Record<string, { address: string; title: string; description: string; messages: Record<string, Ref>; 'x-close-codes': CloseCode[] }>;
  operations: Record<string, AsyncApiOperation>;
  components: { schemas: Record<string, JsonSchema>; messages: Record<string, AsyncApiMessage> };
}

interface CloseCode {
  code: number;
  meaning: string;
}

const CHANNEL = 'socket';
/** Where the OpenAPI document keeps its schemas; the AsyncAPI document keeps them at the same place. */
const SCHEMA_REF = '#/components/schemas/';

/** The close codes the server uses, with when (contract §7). */
export const CLOSE_CODES: readonly CloseCode[] = [
  { code: UNAUTHORIZED_CLOSE, meaning: `No valid auth message within ${AUTH_TIMEOUT_MS / 1000} s (another message first, bad JSON, an unknown, expired or revoked credential), or the credential ended while open (logout, revocation, expiry, the plan lost API access); preceded by auth.error.` },
  { code: FORBIDDEN_CLOSE, meaning: 'A valid credential that may not hold a socket: an API key whose plan lacks the public API (plan_required) or whose scopes read no event (insufficient_scope); preceded by auth.error.' },
  { code: INTERNAL_ERROR_CLOSE, meaning: 'The credential could not be checked (internal error); reconnect and try again.' },
  { code: 1009, meaning: `A client message over ${MAX_MESSAGE_BYTES / 1024} KiB.` },
];

/** `job.progress` → `jobProgress`: message and operation ids. */
function idOf(type: string): string {
  return type.replace(/[._-](\w)/g, (_m, c: string) => c.toUpperCase());
}

function objectSchema(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

function message(name: string, summary: string, payload: JsonSchema): AsyncApiMessage {
  return { name, title: name, summary, contentType: 'application/json', payload };
}

/** The socket's own messages: authentication and keep-alive. */
function controlMessages(): Record<string, AsyncApiMessage> {
  return {
    auth: message('auth', `Client → server, the first message, within ${AUTH_TIMEOUT_MS / 1000} s: a session access token or an API key (psk_...).`,
      objectSchema({ type: { const: 'auth' }, token: { type: 'string', minLength: 1, maxLength: MAX_TOKEN_LENGTH } })),
    authOk: message('auth.ok', "Server → client: the socket is open and receives its workspace's events.",
      objectSchema({ type: { const: 'auth.ok' }, user_id: { type: 'string', example: 'user_01HZX6FQJ5N6E7T2M3A4B5C6D7' } })),
    authError: message('auth.error', `Server → client, then the socket closes (${UNAUTHORIZED_CLOSE} for unauthorized, ${FORBIDDEN_CLOSE} otherwise at connect; ${UNAUTHORIZED_CLOSE} when an open socket's credential ends).`,
      objectSchema({ type: { const: 'auth.error' }, code: { type: 'string', enum: [...SOCKET_REFUSALS] } })),
    ping: message('ping', 'Client → server, once open: answered with pong.', objectSchema({ type: { const: 'ping' } })),
    pong: message('pong', 'Server → client: the answer to ping.', objectSchema({ type: { const: 'pong' } })),
  };
}

function eventMessage(type: RealtimeEventType): AsyncApiMessage {
  const spec = REALTIME_EVENTS[type];
  const scopes = EVENT_READ_SCOPES[type].join(' or ');
  return message(type, `${spec.summary} API keys need ${scopes}.`,
    objectSchema({ type: { const: type }, [spec.field]: { $ref: `${SCHEMA_REF}${spec.schema}` } }));
}

/**
 * OpenAPI 3.0 writes "or null" as `nullable: true`, which JSON Schema does not know: a nullable
 * schema becomes a type list with null, or (for references and compositions) a oneOf with null.
 */
export function toJsonSchema(schema: SchemaObject | ReferenceObject): JsonSchema {
  const converted: JsonSchema = {};
  for (const [key, value] of Object.entries(schema) as Array<[string, unknown]>) {
    if (key === 'nullable') continue;
    converted[key] = convertKeyword(key, value);
  }
  if (!('nullable' in schema) || schema.nullable !== true) return converted;
  const simple = typeof converted.type === 'string' && converted.allOf === undefined && converted.oneOf === undefined;
  if (simple) {
    const withNull: JsonSchema = { ...converted, type: [converted.type, 'null'] };
    if (Array.isArray(converted.enum)) withNull.enum = [...(converted.enum as unknown[]), null];
    return withNull;
  }
  const { description, ...rest } = converted;
  return { ...(description === undefined ? {} : { description }), oneOf: [rest, { type: 'null' }] };
}

function convertKeyword(key: string, value: unknown): unknown {
  const isSchema = (v: unknown): v is SchemaObject => typeof v === 'object' && v !== null && !Array.isArray(v);
  if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isSchema(value)) return toJsonSchema(value);
  if ((key === 'allOf' || key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) return value.map((v: SchemaObject) => toJsonSchema(v));
  if (key === 'properties' && isSchema(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, toJsonSchema(v as SchemaObject)]));
  }
  return value;
}

/** The names of the schemas `schema` refers to, directly or through others, from `available`. */
function referencedSchemas(roots: string[], available: Record<string, SchemaObject | ReferenceObject>): string[] {
  const found = new Set<string>();
  const visit = (name: string, from: string): void => {
    if (found.has(name)) return;
    const schema = available[name];
    if (!schema) throw new Error(`the socket document needs schema ${name} (${from}), which the OpenAPI document lacks`);
    found.add(name);
    for (const ref of JSON.stringify(schema).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) visit(ref[1], name);
  };
  for (const name of roots) visit(name, 'the realtime event catalogue');
  return [...found].sort();
}

/**
 * The AsyncAPI 3.0 document of `/api/v1/ws`, from the event catalogue and the socket's constants. The
 * payload schemas are the OpenAPI document's (`schemas`: its `components.schemas`), converted to JSON
 * Schema; a payload schema the OpenAPI document lacks is an error, not a gap.
 */
export function buildAsyncApiDocument(schemas: Record<string, SchemaObject | ReferenceObject>): AsyncApiDocument {
  const messages: Record<string, AsyncApiMessage> = { ...controlMessages() };
  for (const type of REALTIME_EVENT_TYPES) messages[idOf(type)] = eventMessage(type);
  const channel: Ref = { $ref: `#/channels/${CHANNEL}` };
  const inChannel = (id: string): Ref => ({ $ref: `#/channels/${CHANNEL}/messages/${id}` });
  const operations: Record<string, AsyncApiOperation> = {
    authenticate: { action: 'receive', channel, summary: 'The auth message, answered auth.ok or auth.error.', messages: [inChannel('auth')], reply: { channel, messages: [inChannel('authOk'), inChannel('authError')] } },
    ping: { action: 'receive', channel, summary: 'Keep-alive at the application level, answered pong.', messages: [inChannel('ping')], reply: { channel, messages: [inChannel('pong')] } },
  };
  for (const type of REALTIME_EVENT_TYPES) {
    operations[idOf(type)] = { action: 'send', channel, summary: `${type} to every open socket of the workspace that may read it.`, messages: [inChannel(idOf(type))] };
  }
  const names = referencedSchemas(REALTIME_EVENT_TYPES.map((t) => REALTIME_EVENTS[t].schema), schemas);
  return {
    asyncapi: '3.0.0',
    info: { title: 'Persona Studio real-time socket', version: '1', description: describeSocket() },
    servers: {
      api: {
        host: '{host}',
        protocol: 'ws',
        description: 'The API itself (wss behind TLS).',
        variables: { host: { default: 'localhost:3000', description: "The API's host and port (PUBLIC_URL)." } },
      },
    },
    channels: {
      [CHANNEL]: {
        address: SOCKET_PATH,
        title: 'Workspace events',
        description: 'One plain WebSocket per client. The close codes the server uses are listed in x-close-codes.',
        messages: Object.fromEntries(Object.keys(messages).map((id) => [id, { $ref: `#/components/messages/${id}` }])),
        'x-close-codes': [...CLOSE_CODES],
      },
    },
    operations,
    components: { schemas: Object.fromEntries(names.map((n) => [n, toJsonSchema(schemas[n])])), messages },
  };
}

function describeSocket(): string {
  return [
    `GET ${SOCKET_PATH} upgrades to a plain WebSocket (JSON text messages). The first message must be {"type": "auth", "token"} within ${AUTH_TIMEOUT_MS / 1000} s,`,
    'with a session access token or an API key; the answer is auth.ok, or auth.error and a close (see x-close-codes).',
    "Once open, the socket receives its workspace's events, each {type, <payload>} with the payload the HTTP reads answer;",
    'an API key receives only the events its scopes could read over HTTP. A session and a key are checked again while the',
    `socket is open (at most every 30 s). The server pings at the WebSocket level every ${HEARTBEAT_MS / 1000} s and drops a socket that`,
    'did not answer the previous ping. Events reach a socket whichever API instance it is connected to; a lost event costs a',
    'poll of the HTTP read, never data.',
  ].join(' ');
}
