import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Checks an answer of the running service against the OpenAPI document it serves at
 * /api/docs-json: the status is documented for the operation, the content type is one the
 * operation documents for that status, and a JSON body matches the documented schema. The document
 * is fetched once per server (by origin) and each schema compiled once.
 */

type Json = Record<string, unknown>;

interface Operation {
  id: string;
  method: string;
  template: string;
  regex: RegExp;
  responses: Record<string, Json>;
}

export interface AnswerToCheck {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  body: unknown;
  /** Whether the answer has a body at all (a 204 or a redirect often has none). */
  hasBody: boolean;
}

const DOC_ID = 'openapi.json';
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** OpenAPI 3.0's `nullable: true` as JSON Schema (`anyOf` with null); `$ref`s point into the document's id. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) out[k] = `${DOC_ID}${v}`;
    else if (k === 'example' || k === 'examples' || k === 'nullable') continue;
    else if (k === 'properties' && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, toJsonSchema(s)]));
    else out[k] = toJsonSchema(v);
  }
  if ((node as Json).nullable === true) {
    const { description, ...rest } = out;
    return { ...(description ? { description } : {}), anyOf: [{ type: 'null' }, rest] };
  }
  return out;
}

export class OpenApiValidator {
  private readonly ajv: Ajv;
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly prefix: string;

  constructor(doc: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    const components = (doc.components ?? {}) as Json;
    this.ajv.addSchema({ $id: DOC_ID, components: { schemas: toJsonSchema(components.schemas ?? {}) } });
    const servers = (doc.servers ?? []) as Array<{ url: string }>;
    this.prefix = new URL(servers[0]?.url ?? '/', 'http://x').pathname.replace(/\/$/, '');
    for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item)) {
        const operation = op as Json;
        if (!operation || typeof operation !== 'object' || !operation.responses) continue;
        // Static segments sort before templated ones below, so /marketplace/listings wins over /marketplace/{id}.
        const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
        this.operations.push({
          id: String(operation.operationId),
          method: method.toUpperCase(),
          template,
          regex: new RegExp(`^${pattern}/?$`),
          responses: operation.responses as Record<string, Json>,
        });
      }
    }
    const templated = (o: Operation) => (o.template.match(/\{/g) ?? []).length;
    this.operations.sort((a, b) => templated(a) - templated(b));
  }

  /** The documented operation a request reached, if any (a request outside the API or to no route has none). */
  operationOf(method: string, url: string): Operation | undefined {
    const path = new URL(url, 'http://x').pathname;
    if (!path.startsWith(`${this.prefix}/`) && path !== this.prefix) return undefined;
    const relative = path.slice(this.prefix.length) || '/';
    return this.operations.find((o) => o.method === method.toUpperCase() && o.regex.test(relative));
  }

  /** What is wrong with an answer, or undefined when it matches the document. */
  check(answer: AnswerToCheck): string | undefined {
    const op = this.operationOf(answer.method, answer.url);
    if (!op) return undefined;
    const label = `${op.id} (${answer.method.toUpperCase()} ${op.template}) answered ${answer.status}`;
    const response = op.responses[String(answer.status)] ?? op.responses[`${String(answer.status)[0]}XX`] ?? op.responses.default;
    if (!response) return `${label}, a status its OpenAPI operation does not document (documented: ${Object.keys(op.responses).join(', ')})`;
    const content = response.content as Record<string, { schema?: unknown }> | undefined;
    const type = answer.contentType?.split(';')[0].trim().toLowerCase();
    if (!content || Object.keys(content).length === 0) {
      // A redirect's short HTML/text body is Express's, not part of the contract.
      return !answer.hasBody || (answer.status >= 300 && answer.status < 400) ? undefined : `${label} with a ${type ?? 'untyped'} body where the document declares none`;
    }
    if (!answer.hasBody && answer.method.toUpperCase() === 'HEAD') return undefined;
    const media = type ? (content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*']) : undefined;
    if (!media) return `${label} as ${type ?? 'no content type'}, not one of the documented ${Object.keys(content).join(', ')}`;
    if (!type!.includes('json') || !media.schema) return undefined;
    const key = `${op.id} ${answer.status} ${type}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(media.schema) as object);
      this.compiled.set(key, validate);
    }
    if (validate(answer.body)) return undefined;
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return `${label} with a body that does not match its documented schema:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(answer.body).slice(0, 1500)}`;
  }
}

const byOrigin = new Map<string, Promise<OpenApiValidator | undefined>>();

/** The validator of the server at `baseUrl` (its document fetched once); undefined when it serves no document. */
export function validatorFor(baseUrl: string): Promise<OpenApiValidator | undefined> {
  const origin = new URL(baseUrl).origin;
  let found = byOrigin.get(origin);
  if (!found) {
    found = fetch(`${origin}/api/docs-json`).then(async (res) => (res.ok ? new OpenApiValidator((await res.json()) as Json) : undefined));
    byOrigin.set(origin, found);
    // A failed fetch (server not up yet) is tried again on the next answer.
    found.catch(() => byOrigin.delete(origin));
  }
  return found;
}
