import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = join(import.meta.dirname, 'fixture');
const CONFIG = join(ROOT, '.dependency-cruiser.js');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string; dependencyTypes: string[] }[];
}
interface CruiseResult {
  modules: { source: string; dependencies: { resolved: string; couldNotResolve: boolean }[] }[];
  summary: { violations: Violation[] };
}

/** The CLI and config file `npm run lint:boundaries` uses, run from the fixture root so its src/ is the one the rules name. */
function cruiseFixture(): CruiseResult {
  const run = spawnSync(process.execPath, [CLI, 'src', '--config', CONFIG, '--output-type', 'json'], {
    cwd: FIXTURE,
    encoding: 'utf8',
  });
  // The exit code is the number of errors, which the fixture has on purpose; no report is the failure.
  if (!run.stdout) throw new Error(`depcruise gave no report: ${run.stderr}`);
  return JSON.parse(run.stdout) as CruiseResult;
}

/** Packages resolve into node_modules wherever it really lives (here through a symlink); name them. */
const named = (path: string): string => path.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, '$1');

const EXPECTED: [rule: string, from: string, to: string][] = [
  ['no-context-internals', 'src/modules/content/application/brief.ts', 'src/modules/characters/infrastructure/character.repository.ts'],
  ['domain-is-pure', 'src/modules/characters/domain/character-status.ts', '@nestjs/common'],
  ['domain-is-pure', 'src/modules/characters/domain/character-schema.ts', 'typeorm'],
  ['layers-point-inward', 'src/modules/content/application/item-views.ts', 'src/modules/content/api/dto/item.body.ts'],
  ['platform-knows-no-modules', 'src/platform/queue/queue.module.ts', 'src/app.module.ts'],
  ['platform-knows-no-modules', 'src/platform/realtime/fan-out.ts', 'src/modules/content/index.ts'],
  ['core-is-the-kernel', 'src/core/ids.ts', 'src/config/config.ts'],
  ['core-is-the-kernel', 'src/config/config.ts', 'src/platform/queue/job-store.ts'],
  ['no-circular', 'src/platform/queue/job-store.ts', 'src/platform/queue/job.types.ts'],
];

describe('dependency rules (.dependency-cruiser.js) against test/boundaries/fixture', () => {
  let result: CruiseResult;
  beforeAll(() => {
    result = cruiseFixture();
  });

  it.each(EXPECTED)('%s: %s -> %s', (rule, from, to) => {
    const hits = result.summary.violations.filter((v) => v.rule.name === rule && v.from === from);
    expect(hits.map((v) => named(v.to))).toContain(to);
  });

  it('reports nothing beyond the planted breaks', () => {
    const reported = result.summary.violations.map((v) => [v.rule.name, v.from, named(v.to)]);
    expect(reported.sort()).toEqual([...EXPECTED].sort());
  });

  it('counts a cycle made only of `import type`', () => {
    const cycle = result.summary.violations.find((v) => v.rule.name === 'no-circular')?.cycle ?? [];
    expect(cycle.map((step) => step.name)).toEqual(['src/platform/queue/job.types.ts', 'src/platform/queue/job-store.ts']);
    for (const step of cycle) expect(step.dependencyTypes).toContain('type-only');
  });

  it('passes a clean file and resolves its .js specifiers to the .ts sources', () => {
    const clean = 'src/modules/content/application/items.service.ts';
    expect(result.summary.violations.filter((v) => v.from === clean)).toEqual([]);
    const deps = result.modules.find((m) => m.source === clean)?.dependencies ?? [];
    expect(deps.filter((d) => d.couldNotResolve)).toEqual([]);
    expect(deps.map((d) => named(d.resolved)).sort()).toEqual([
      '@nestjs/common',
      'src/core/ids.ts',
      'src/modules/characters/index.ts',
      'src/modules/content/domain/item.ts',
    ]);
  });
});
