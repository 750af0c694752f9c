import { execFile } from 'node:child_process';

export type MediaTool = 'ffmpeg' | 'ffprobe';

/** Where a tool came from: the operator's setting, the system's PATH, or the npm package's copy. */
export type MediaToolSource = 'configured' | 'system' | 'bundled';

export interface MediaToolChoice {
  tool: MediaTool;
  path: string;
  source: MediaToolSource;
  /** What `-version` printed after "ffmpeg version" ("6.1.1-3ubuntu5", "N-47683-g0e8eb07980-static"). */
  version: string;
  /** The release's major number; null for a git snapshot, whose number says nothing of its age. */
  major: number | null;
}

/** The oldest release the system's copy may be to be preferred over the bundled one. */
export const MIN_SYSTEM_MAJOR = 6;

/** Answers what `<path> -version` printed; rejects when the binary cannot be run. */
export type VersionProbe = (path: string) => Promise<string>;

export interface MediaToolCandidates {
  /**
   * FFMPEG_PATH / FFPROBE_PATH: used whatever its version (a distribution's maintained release,
   * such as Debian 12's 5.1 with its security fixes, is the operator's call), refused at start-up
   * if it cannot run.
   */
  configured?: string;
  /** The bare command name, looked up on PATH. */
  system: string;
  /** The npm package's binary and the version it declares; rejects when not shipped for this platform. */
  bundled: () => Promise<{ path: string; version: string }>;
}

export interface MediaToolSelection {
  /** Null when no copy runs at all: the local renderers then fail as `unavailable`. */
  choice: MediaToolChoice | null;
  /** For the start-up log: why an old or no copy is in use. */
  warnings: string[];
}

/** The version word of `ffmpeg -version`'s first line and its major release number, if it has one. */
export function parseToolVersion(output: string): { version: string; major: number | null } | null {
  const m = /^ff(?:mpeg|probe) version (\S+)/m.exec(output);
  if (!m) return null;
  const release = /^n?(\d+)\.\d+/.exec(m[1]);
  return { version: m[1], major: release ? Number(release[1]) : null };
}

/**
 * Picks the binary that decodes untrusted uploads: the configured one when set (an operator's
 * explicit choice; it must run), else the system's when it is a release ≥ 6, else the bundled
 * one, which is old (the ffmpeg package is a 2018 build), with a warning naming its version.
 */
export async function selectMediaTool(tool: MediaTool, candidates: MediaToolCandidates, probe: VersionProbe): Promise<MediaToolSelection> {
  const env = tool === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH';
  if (candidates.configured) {
    const found = await versionOf(candidates.configured, probe);
    if (!found) throw new Error(`${env}=${candidates.configured} does not run as ${tool} (\`${candidates.configured} -version\` failed or printed no ${tool} version).`);
    return { choice: { tool, path: candidates.configured, source: 'configured', ...found }, warnings: [] };
  }
  const system = await versionOf(candidates.system, probe);
  if (system && system.major !== null && system.major >= MIN_SYSTEM_MAJOR) {
    return { choice: { tool, path: candidates.system, source: 'system', ...system }, warnings: [] };
  }
  const skipped = system ? ` (the system's ${tool} ${system.version} is not a release ≥ ${MIN_SYSTEM_MAJOR})` : '';
  const bundled = await candidates.bundled().catch(() => null);
  if (!bundled) {
    return { choice: null, warnings: [`No ${tool} can be run${skipped}: install ${tool} ≥ ${MIN_SYSTEM_MAJOR} or set ${env}; the local renderers fail until then.`] };
  }
  const warning = `Using the bundled ${tool} ${bundled.version}${skipped}, an old build that decodes untrusted uploads: install ${tool} ≥ ${MIN_SYSTEM_MAJOR} or set ${env}.`;
  return { choice: { tool, path: bundled.path, source: 'bundled', version: bundled.version, major: parseToolVersion(`${tool} version ${bundled.version}`)?.major ?? null }, warnings: [warning] };
}

async function versionOf(path: string, probe: VersionProbe): Promise<{ version: string; major: number | null } | null> {
  try {
    return parseToolVersion(await probe(path));
  } catch {
    return null;
  }
}

/** Runs `<path> -version` (no shell), for at most 10 s. */
export const runVersion: VersionProbe = (path) =>
  new Promise((resolve, reject) => {
    execFile(path, ['-version'], { timeout: 10_000, maxBuffer: 1024 * 1024, windowsHide: true }, (err: Error | null, stdout: string) => (err ? reject(err) : resolve(stdout)));
  });
