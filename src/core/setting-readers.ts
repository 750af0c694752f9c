/**
 * Readers the contexts' own settings parsers share (those may import core/ only). Imports nothing:
 * the configuration imports the parsers that import this.
 */
export type Env = Record<string, string | undefined>;

/** The setting's value, trimmed; undefined when unset or blank. */
export function settingValue(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** A whole number of milliseconds in [min, max], or `fallback` when unset; anything else throws the one line start-up prints. */
export function wholeMillis(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = settingValue(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new Error(`${name} must be a whole number of milliseconds from ${min} to ${max}, got "${raw}"`);
  return n;
}
