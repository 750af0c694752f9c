import { isStorageKey } from '../storage/index.js';

/** Field names that hold storage keys, in rows (snake_case) and in JSON documents (camelCase). */
const KEY_FIELD = /(^key$|_key$|Key$|^sample_keys$|^sampleKeys$|^storage_keys$|^storageKeys$)/;

/**
 * Every storage key found in rows: the values of key-named fields (`storage_key`, `video_key`,
 * `thumbnailKey`, `sample_keys`, …) at any depth of their JSON, kept only when they have a key's
 * shape. Contexts keep keys in columns and in JSON media lists alike; one walk finds both.
 */
export function storageKeysIn(value: unknown, found: Set<string> = new Set()): string[] {
  walk(value, undefined, found);
  return [...found];
}

function walk(value: unknown, field: string | undefined, found: Set<string>): void {
  if (typeof value === 'string') {
    if (field !== undefined && KEY_FIELD.test(field) && isStorageKey(value)) found.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) walk(item, field, found);
    return;
  }
  if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    for (const [k, v] of Object.entries(value)) walk(v, k, found);
  }
}

/** A row without the named columns (secrets, hashes, sealed tokens). */
export function without<T extends Record<string, unknown>>(row: T, omitted: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...row };
  for (const name of omitted) delete copy[name];
  return copy;
}
