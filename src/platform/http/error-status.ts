import type { CodesOf, ErrorCode, ErrorStatus, ErrorTable } from '../../core/index.js';

/** Every error code's HTTP status: assembled once at the edge, handed to the filter and the docs. */
export type ErrorStatusMap = Readonly<Record<ErrorCode, ErrorStatus>>;

/**
 * Merges the owners' tables into one code → status map. Throws, naming the code and both owners,
 * when two tables declare the same code: one code must mean one thing.
 */
export function mergeErrorTables<Tables extends Readonly<Record<string, ErrorTable>>>(
  tables: Tables,
): Readonly<Record<CodesOf<Tables>, ErrorStatus>> {
  const merged: Record<string, ErrorStatus> = {};
  const ownerOf = new Map<string, string>();
  for (const [owner, table] of Object.entries(tables)) {
    for (const [code, status] of Object.entries(table)) {
      const first = ownerOf.get(code);
      if (first !== undefined) throw new Error(`error code ${code} is declared twice: by ${first} and by ${owner}`);
      ownerOf.set(code, owner);
      merged[code] = status;
    }
  }
  return merged as Record<CodesOf<Tables>, ErrorStatus>;
}
