/** Vector helpers for appearance embeddings. */
export const EMBEDDING_DIMENSIONS = 512;

export function isEmbedding(value: unknown, dims = EMBEDDING_DIMENSIONS): value is number[] {
  return Array.isArray(value) && value.length === dims && value.every((x) => typeof x === 'number' && Number.isFinite(x));
}

export function l2Normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v.map(() => 0) : v.map((x) => x / norm);
}

/** Element-wise mean; null for no vectors. All vectors must have the same length. */
export function meanVector(vectors: number[][]): number[] | null {
  if (vectors.length === 0) return null;
  const dims = vectors[0].length;
  const sum = new Array<number>(dims).fill(0);
  for (const v of vectors) {
    if (v.length !== dims) throw new Error('vectors differ in length');
    for (let i = 0; i < dims; i++) sum[i] += v[i];
  }
  return sum.map((x) => x / vectors.length);
}

export function cosineSimilarity(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Equal within float4 precision (what PostgreSQL `real` keeps). */
export function sameVector(a: number[] | null, b: number[] | null, tolerance = 1e-5): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);
}
