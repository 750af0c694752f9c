// Builds dist/ only when a source it is made from changed since the last successful build.
// `npm start` and the other run scripts call this instead of `tsc` so a second start takes
// milliseconds instead of a full compile (about 30 s and 600 MB of memory on a small machine).
// `npm run build` (this script with --force) compiles unconditionally; the e2e suite and the
// Docker image use it.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const STAMP = join(root, 'dist', '.build-stamp');

/**
 * What `tsc -p tsconfig.build.json` reads: its `include` folders, the configs, and the package
 * manifest and lockfile (a changed dependency or module setting changes what the compile makes).
 */
function sources() {
  const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
  const inputs = [...build.include, 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
  return inputs.map((p) => join(root, p));
}

/** Newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A folder's own time moves when a file in it is added, renamed or removed.
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** The stamp's content names what it was built from, so a build from another checkout never counts. */
function stampIsCurrent(inputsTime) {
  try {
    return readFileSync(STAMP, 'utf8') === root && statSync(STAMP).mtimeMs >= inputsTime;
  } catch {
    return false;
  }
}

const force = process.argv.includes('--force');
if (!force && stampIsCurrent(Math.max(...sources().map(newest)))) process.exit(0);

if (!force) console.error('build-if-stale: sources changed since the last build, compiling…');
// The stamp carries the time the compile started: a file saved while tsc runs counts as newer.
const startedAt = new Date();
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
writeFileSync(STAMP, root);
utimesSync(STAMP, startedAt, startedAt);
