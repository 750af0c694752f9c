import { isClean, type Measurement } from './load.js';

export interface Target {
  /** What the issue asks, in its words, e.g. `GET /auth/me >= 60% of health rps`. */
  goal: string;
  /** What was measured, e.g. `72%`. */
  actual: string;
  pass: boolean;
  note?: string;
}

function pad(cells: string[], widths: number[], right: boolean[]): string {
  return cells.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
}

/** A plain-text table; `right[i]` right-aligns column i (numbers). */
export function table(header: string[], rows: string[][], right: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const lines = [pad(header, widths, right), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => pad(r, widths, right))];
  return lines.map((l) => l.trimEnd()).join('\n');
}

/** Route, requests/s, p50, p99, the ratio to the baseline's requests/s, and what went wrong if anything. */
export function measurementTable(measurements: Measurement[], baseline: Measurement | undefined): string {
  const rows = measurements.map((m) => [
    m.label,
    m.rps.toFixed(0),
    `${m.p50}`,
    `${m.p99}`,
    // An open loop's rate is chosen, not reached: comparing it with the baseline's capacity means nothing.
    baseline && baseline.rps > 0 && m.connections > 0 ? `${((m.rps / baseline.rps) * 100).toFixed(0)}%` : '-',
    m.rssPeakMb === undefined ? '-' : m.rssPeakMb.toFixed(0),
    `${m.requests} in ${m.durationSeconds.toFixed(1)} s`,
    isClean(m) ? 'ok' : problems(m),
  ]);
  return table(['route', 'req/s', 'p50 ms', 'p99 ms', 'vs health', 'RSS MB', 'requests', 'answers'], rows, [false, true, true, true, true, true, true, false]);
}

function problems(m: Measurement): string {
  const codes = Object.entries(m.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n}x${code}`);
  if (m.errors > 0) {
    const kinds = Object.entries(m.errorKinds ?? {}).map(([kind, n]) => `${n}x ${kind}`);
    codes.push(kinds.length > 0 ? `${m.errors} errors (${kinds.join(', ')})` : `${m.errors} errors`);
  }
  return `NOT CLEAN: ${codes.join(', ')}`;
}

export function targetTable(targets: Target[]): string {
  const rows = targets.map((t) => [t.pass ? 'PASS' : 'FAIL', t.goal, t.actual, t.note ?? '']);
  return table(['', 'target', 'measured', 'note'], rows, [false, false, true, false]);
}

/** `measured / baseline >= fraction`, judged only on clean measurements. */
export function ratioTarget(m: Measurement | undefined, baseline: Measurement | undefined, fraction: number, goal: string): Target {
  if (!m || !baseline) return { goal, actual: 'n/a', pass: false, note: 'not measured' };
  const ratio = baseline.rps > 0 ? m.rps / baseline.rps : 0;
  const clean = isClean(m) && isClean(baseline);
  return { goal, actual: `${(ratio * 100).toFixed(0)}%`, pass: clean && ratio >= fraction, note: clean ? undefined : 'answers were not all 2xx' };
}

/** `p99 < maxP99Ms`; `where` says under what load (default: at the measurement's connections). */
export function latencyTarget(m: Measurement | undefined, maxP99Ms: number, where = `at ${m?.connections ?? '?'} connections`): Target {
  const goal = `${m?.label ?? '?'}: p99 < ${maxP99Ms} ms ${where}`;
  if (!m) return { goal, actual: 'n/a', pass: false, note: 'not measured' };
  const clean = isClean(m);
  return { goal, actual: `${m.p99} ms`, pass: clean && m.p99 < maxP99Ms, note: clean ? undefined : 'answers were not all 2xx' };
}

export function memoryTarget(peakMb: number, maxMb: number): Target {
  return { goal: `API server peak RSS < ${maxMb} MB`, actual: `${peakMb.toFixed(0)} MB`, pass: peakMb > 0 && peakMb < maxMb };
}
