import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

/**
 * `npm start` compiles only when a source changed since the last build (scripts/build-if-stale.mjs).
 * Run against a one-file project in a temporary folder: a compile leaves `dist/src/app.js`, so its
 * absence after a deletion tells whether the script compiled again.
 */
const ROOT = resolve(import.meta.dirname, '../..');
let project: string;

function run(...args: string[]): void {
  execFileSync(process.execPath, [join(project, 'scripts/build-if-stale.mjs'), ...args], { cwd: project, stdio: 'pipe' });
}

const built = () => existsSync(join(project, 'dist/src/app.js'));
const forgetOutput = () => rmSync(join(project, 'dist/src/app.js'));

/** Every input dated a minute ago, built, output removed: from here only a newer input compiles. */
function settle(): void {
  const past = new Date(Date.now() - 60_000);
  for (const path of ['src', 'src/app.ts', 'src/extra.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']) {
    if (existsSync(join(project, path))) utimesSync(join(project, path), past, past);
  }
  run('--force');
  forgetOutput();
  run();
  expect(built()).toBe(false);
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  mkdirSync(join(project, 'scripts'));
  mkdirSync(join(project, 'src'));
  cpSync(join(ROOT, 'scripts/build-if-stale.mjs'), join(project, 'scripts/build-if-stale.mjs'));
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: '.', module: 'nodenext', target: 'ES2023', lib: ['ES5'], types: [], skipLibCheck: true } }));
  writeFileSync(join(project, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src'] }));
  writeFileSync(join(project, 'package.json'), '{"private":true}');
  writeFileSync(join(project, 'package-lock.json'), '{}');
  writeFileSync(join(project, 'src/app.ts'), 'export const answer: number = 42;\n');
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('build-if-stale', () => {
  it('compiles a checkout that was never built', () => {
    run();
    expect(built()).toBe(true);
  });

  it('does not compile again while no source changed', () => {
    forgetOutput();
    run();
    expect(built()).toBe(false);
  });

  it('compiles again once a source is newer than the last build', () => {
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(project, 'src/app.ts'), later, later);
    run();
    expect(built()).toBe(true);
  });

  it('compiles again when a file is added', () => {
    forgetOutput();
    const later = new Date(Date.now() + 10_000);
    writeFileSync(join(project, 'src/extra.ts'), 'export const more = 1;\n');
    utimesSync(join(project, 'src/extra.ts'), later, later);
    run();
    expect(built()).toBe(true);
  });

  it.each(['package.json', 'package-lock.json'])('compiles again when %s changed (dependencies, module settings)', (file) => {
    settle();
    const later = new Date(Date.now() + 20_000);
    utimesSync(join(project, file), later, later);
    run();
    expect(built()).toBe(true);
  });
});
