import type { OpenAPIObject, OperationObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';

/**
 * The rules that make the OpenAPI document exact enough for a client generator, applied to what
 * Swagger reads from the decorators. Each is derived from the code (a controller's and a method's
 * names, the class-validator rules of a DTO, the access rule of a route), never from a list of
 * routes, so a new controller is documented by the same rules.
 */

type Schema = SchemaObject | ReferenceObject;
/** A class, as TypeScript's emitted metadata and class-validator name it. */
export type ClassType = abstract new (...args: never[]) => unknown;

/** Verbs a method name may start with that answer a collection (the noun stays plural). */
const COLLECTION_VERBS = new Set(['list', 'browse', 'search']);
/** Method names that are synonyms of a plainer verb. */
const VERB_SYNONYMS: Record<string, string> = { index: 'list', remove: 'delete' };

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function words(camel: string): string[] {
  return camel.split(/(?=[A-Z])/).filter(Boolean);
}

/** English singular of the last word of a PascalCase noun (Characters → Character, Analytics stays). */
function singular(noun: string): string {
  const parts = words(noun);
  const last = parts.pop() ?? '';
  let one = last;
  if (/ies$/.test(last)) one = `${last.slice(0, -3)}y`;
  else if (/(ss|us|ics|data|media|s[ia]s)$/i.test(last)) one = last;
  else if (/(ches|shes|xes)$/.test(last)) one = last.slice(0, -2);
  else if (/s$/.test(last)) one = last.slice(0, -1);
  return [...parts, one].join('');
}

/**
 * The operationId of a controller method without an explicit one: `<verb><Noun>` in camelCase, the
 * verb from the method name and the noun from the controller's (`CharactersController.list` →
 * `listCharacters`, `.create` → `createCharacter`); a method whose name already holds a noun keeps
 * it and adds the controller's (`LoraController.addImages` → `addImagesLora`).
 */
export function defaultOperationId(controller: string, method: string): string {
  const noun = controller.replace(/Controller$/, '');
  const [first, ...rest] = words(method);
  const verb = VERB_SYNONYMS[first] ?? first;
  const tail = rest.join('');
  if (tail) {
    // `switchWorkspace` on AuthController: the method names what it acts on; the controller says where.
    return `${verb}${tail}${noun.toLowerCase().startsWith(tail.toLowerCase()) ? '' : noun}`.replace(/^./, (c) => c.toLowerCase());
  }
  return `${verb}${COLLECTION_VERBS.has(verb) ? noun : singular(noun)}`;
}

/**
 * The id of the `index`th path a route is served at: the first keeps the route's id, each other one
 * adds the path's first segment (`listCharacters` at /influencers → `listCharactersViaInfluencers`).
 */
export function aliasOperationId(id: string, path: string, index: number): string {
  if (index === 0) return id;
  const segment = path.replace(/^\/api\/v\d+/, '').split('/').find((s) => s && !s.startsWith('{')) ?? `path${index}`;
  return `${id}Via${segment.split(/[-_]/).map(upperFirst).join('')}`;
}

/** Which properties of which class are whole numbers, from their class-validator rules (`@IsInt()`). */
export function integerPropertiesOf(target: ClassType): Set<string> {
  const found = new Set<string>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)) {
    if (m.name === 'isInt') found.add(m.propertyName);
  }
  return found;
}

/** Every class name class-validator knows, with its whole-number properties. */
function integerPropertiesByClass(): Map<string, Set<string>> {
  const byName = new Map<string, Set<string>>();
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<ClassType, Array<{ name?: string; propertyName: string }>> };
  const all = storage.validationMetadatas;
  for (const [target, list] of all instanceof Map ? all : new Map()) {
    for (const m of list) {
      if (m.name !== 'isInt') continue;
      const set = byName.get(target.name) ?? new Set<string>();
      set.add(m.propertyName);
      byName.set(target.name, set);
    }
  }
  return byName;
}

function isRef(s: unknown): s is ReferenceObject {
  return typeof s === 'object' && s !== null && '$ref' in s;
}

function refName(ref: ReferenceObject): string {
  return ref.$ref.replace('#/components/schemas/', '');
}

/** Whole-number fields typed `integer`: a DTO's `@IsInt()` properties, in the body and the query. */
export function typeIntegers(doc: OpenAPIObject): void {
  const ints = integerPropertiesByClass();
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const props = ints.get(name);
    if (!props || isRef(schema)) continue;
    for (const prop of props) {
      const p = schema.properties?.[prop];
      if (p && !isRef(p) && p.type === 'number') p.type = 'integer';
    }
  }
}

/** A query parameter is typed integer when a DTO of the route's arguments says `@IsInt()` on it. */
export function typeIntegerParameters(operation: OperationObject, argumentTypes: ClassType[]): void {
  const names = new Set<string>();
  for (const t of argumentTypes) for (const p of integerPropertiesOf(t)) names.add(p);
  for (const param of operation.parameters ?? []) {
    if (isRef(param)) continue;
    const { schema } = param;
    if (schema && !isRef(schema) && schema.type === 'number' && (names.has(param.name) || param.in === 'path')) schema.type = 'integer';
  }
}

/** String keywords: a property that has one is a string even when TypeScript's type said `string | null` (Object). */
const STRING_KEYWORDS = ['maxLength', 'minLength', 'pattern', 'format'] as const;

/**
 * Nullable properties that Swagger typed `object` from a `string | null` declaration become strings;
 * (a nullable reference keeps `type: object` beside its `allOf`, as OpenAPI 3.0's `nullable` needs a type).
 */
export function fixNullableTypes(doc: OpenAPIObject): void {
  for (const schema of Object.values(doc.components?.schemas ?? {})) {
    if (isRef(schema)) continue;
    for (const p of Object.values(schema.properties ?? {})) {
      if (isRef(p)) continue;
      if (p.type === 'object' && !p.properties && !p.additionalProperties && STRING_KEYWORDS.some((k) => p[k] !== undefined)) p.type = 'string';
    }
  }
}

/** Every schema a request body refers to, directly or through another: each refuses unknown properties. */
export function closeInputSchemas(doc: OpenAPIObject): void {
  const schemas = doc.components?.schemas ?? {};
  const seen = new Set<string>();
  const visit = (s: Schema | undefined): void => {
    if (!s) return;
    if (isRef(s)) {
      const name = refName(s);
      if (seen.has(name)) return;
      seen.add(name);
      const target = schemas[name];
      if (target && !isRef(target)) {
        if (target.type === 'object' || target.properties) target.additionalProperties = false;
        visit(target);
      }
      return;
    }
    for (const p of Object.values(s.properties ?? {})) visit(p);
    if (s.items) visit(s.items);
    for (const k of ['allOf', 'oneOf', 'anyOf'] as const) for (const x of s[k] ?? []) visit(x);
  };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as unknown[]) {
      const body = (op as OperationObject | undefined)?.requestBody;
      if (!body || isRef(body)) continue;
      for (const media of Object.values(body.content ?? {})) {
        const s = media.schema;
        if (s && !isRef(s) && (s.type === 'object' || s.properties) && s.additionalProperties === undefined) s.additionalProperties = false;
        visit(s);
      }
    }
  }
}
