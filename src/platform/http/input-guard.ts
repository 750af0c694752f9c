import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../../core/index.js';

/** Deepest JSON nesting a body may have (contract §2); `{"a": 1}` is depth 1. */
export const MAX_JSON_DEPTH = 64;

/** Every control character (C0, DEL, C1): PostgreSQL refuses NUL, and none belongs in an API's text. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, but tab, line feed and carriage return pass: body text may be multi-line. */
// eslint-disable-next-line no-control-regex -- likewise
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

export interface BadInput {
  /** Dotted path of the offending value (`identity.location`, `presets.2`), or '' for the whole body. */
  field: string;
  message: string;
}

export interface InputCheck {
  /** Refuse objects and arrays nested deeper than this; undefined: no limit. */
  maxDepth?: number;
  /**
   * Which strings (keys included) are refused: `all` any control character, `multiline` any but
   * tab, line feed and carriage return (body text may be multi-line), `none` no check.
   */
  controls: 'all' | 'multiline' | 'none';
}

/**
 * The first thing wrong with a parsed input: nesting past `maxDepth`, or a control character in
 * any string (keys included). Walks with an explicit stack, so a hostile depth cannot overflow
 * ours, and stops at the first finding.
 */
export function findBadInput(value: unknown, check: InputCheck): BadInput | undefined {
  const control = check.controls === 'all' ? ANY_CONTROL : check.controls === 'multiline' ? CONTROL_BUT_LINE_BREAKS : undefined;
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (control?.test(v)) return { field: path, message: `${path || 'the value'} must not contain control characters` };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (check.maxDepth !== undefined && depth + 1 > check.maxDepth) {
      // Named by the top-level field that holds the deep value, not a path sixty segments long.
      return { field: path.split('.')[0], message: `JSON must not be nested deeper than ${check.maxDepth} levels` };
    }
    for (const [key, child] of Object.entries(v)) {
      const childPath = path ? `${path}.${key}` : key;
      if (control?.test(key)) return { field: path, message: `${path || 'the body'} has a field name with control characters` };
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}

function refuse(bad: BadInput): AppError {
  return new AppError('validation_failed', bad.message, [{ field: bad.field, message: bad.message }]);
}

/**
 * Runs right after the JSON parser, before anything walks the body recursively (class-transformer
 * overflows its stack on thousands of levels): a body nested past MAX_JSON_DEPTH is 400.
 */
export function jsonDepthGuard(req: Request, _res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  // A raw body (a webhook's exact bytes) is not JSON yet: its route parses it after verifying it.
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return next();
  const bad = findBadInput(body, { maxDepth: MAX_JSON_DEPTH, controls: 'none' });
  next(bad ? refuse(bad) : undefined);
}

/**
 * 400 when a value about to be validated holds a control character. The validation pipe calls it
 * for every body (JSON or multipart), query and path parameter, so no text reaches a service
 * (or PostgreSQL, which refuses NUL) with one. Body text may hold line breaks and tabs.
 */
export function assertNoControlCharacters(value: unknown, source: 'body' | 'query' | 'param'): void {
  const bad = findBadInput(value, { controls: source === 'body' ? 'multiline' : 'all' });
  if (bad) throw refuse(bad);
}
