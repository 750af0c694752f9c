/**
 * A small JSON Schema check for the e2e tests: the keywords the API documents use (type, const, enum,
 * properties, required, items, $ref, allOf, oneOf). Strict about objects: a property the schema does
 * not name is reported, so a field the wire carries but the document lacks is drift too.
 */
type Schema = Record<string, unknown>;

export function schemaErrors(value: unknown, schema: Schema, root: Schema, at = '$'): string[] {
  if (typeof schema.$ref === 'string') return schemaErrors(value, resolve(root, schema.$ref), root, at);
  if (Array.isArray(schema.oneOf)) {
    const matching = (schema.oneOf as Schema[]).filter((s) => schemaErrors(value, s, root, at).length === 0);
    if (matching.length !== 1) return [`${at}: matches ${matching.length} of oneOf`];
  }
  const errors: string[] = [];
  for (const sub of (schema.allOf as Schema[] | undefined) ?? []) errors.push(...schemaErrors(value, sub, root, at));
  if ('const' in schema && value !== schema.const) errors.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return [...errors, `${at}: ${typeOf(value)} is not ${types.join('|')}`];
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errors.push(...schemaErrors(v, schema.items as Schema, root, `${at}[${i}]`)));
  if (typeOf(value) === 'object' && schema.properties) errors.push(...objectErrors(value as Record<string, unknown>, schema, root, at));
  return errors;
}

function objectErrors(value: Record<string, unknown>, schema: Schema, root: Schema, at: string): string[] {
  const properties = schema.properties as Record<string, Schema>;
  const errors = ((schema.required as string[] | undefined) ?? []).filter((k) => !(k in value)).map((k) => `${at}.${k}: missing`);
  for (const [key, v] of Object.entries(value)) {
    if (!properties[key]) errors.push(`${at}.${key}: not in the schema`);
    else errors.push(...schemaErrors(v, properties[key], root, `${at}.${key}`));
  }
  return errors;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function resolve(root: Schema, ref: string): Schema {
  const found = ref.replace(/^#\//, '').split('/').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
  if (!found) throw new Error(`unresolved ${ref}`);
  return found as Schema;
}
