import { upstreamFailed } from '../shared/provider-failure.js';

export const PREDICTION_STATUSES = ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'] as const;
export type PredictionStatus = (typeof PREDICTION_STATUSES)[number];

/** The parts of Replicate's prediction object we rely on. */
export interface Prediction {
  id: string;
  status: PredictionStatus;
  output: unknown;
  error: string | null;
  urls?: { get?: string; cancel?: string };
}

export function isTerminal(p: Prediction): boolean {
  return p.status !== 'starting' && p.status !== 'processing';
}

/** Checks an answer really is a prediction before anything trusts its fields. */
export function parsePrediction(data: unknown): Prediction {
  const p = data as Partial<Record<keyof Prediction, unknown>> | null;
  const statusOk = typeof p?.status === 'string' && (PREDICTION_STATUSES as readonly string[]).includes(p.status);
  if (!p || typeof p !== 'object' || typeof p.id !== 'string' || p.id === '' || !statusOk) {
    throw upstreamFailed('replicate', 'bad_response', 'Replicate answered with something that is not a prediction.');
  }
  const error = p.error === null || p.error === undefined ? null : typeof p.error === 'string' ? p.error : JSON.stringify(p.error);
  return { id: p.id, status: p.status as PredictionStatus, output: p.output ?? null, error, urls: p.urls as Prediction['urls'] };
}

/** Output files as a list: models answer one URL, a list of them, or (rarely) data URIs. */
export function outputUrls(p: Prediction): string[] {
  const out = p.output;
  if (typeof out === 'string' && out !== '') return [out];
  if (Array.isArray(out) && out.length > 0 && out.every((u) => typeof u === 'string' && u !== '')) return out as string[];
  throw upstreamFailed('replicate', 'bad_response', `Replicate prediction ${p.id} succeeded without output files.`, { prediction_id: p.id });
}
