import { describe, expect, it } from '@jest/globals';
import { parseToolVersion, selectMediaTool, type MediaToolCandidates, type VersionProbe } from './media-tools.js';

/** What `-version` prints, first line as real builds print it. */
const banner = (tool: string, version: string) => `${tool} version ${version} Copyright (c) 2000-2024 the FFmpeg developers\nbuilt with gcc 12 (Debian 12.2.0-14)\n`;

/** A probe that knows a few paths; any other path cannot be run. */
function probeOf(outputs: Record<string, string>): VersionProbe & { asked: string[] } {
  const asked: string[] = [];
  const probe = async (path: string) => {
    asked.push(path);
    if (!(path in outputs)) throw Object.assign(new Error(`spawn ${path} ENOENT`), { code: 'ENOENT' });
    return outputs[path];
  };
  return Object.assign(probe, { asked });
}

const BUNDLED = { path: '/app/node_modules/@ffmpeg-installer/linux-x64/ffmpeg', version: '20181210-g0e8eb07980' };
const candidates = (over: Partial<MediaToolCandidates> = {}): MediaToolCandidates => ({ system: 'ffmpeg', bundled: async () => BUNDLED, ...over });

describe('parseToolVersion', () => {
  it.each([
    ['ffmpeg version 6.1.1-3ubuntu5 Copyright (c) 2000-2023', '6.1.1-3ubuntu5', 6],
    ['ffmpeg version 5.1.6-0+deb12u1 Copyright (c) 2000-2024', '5.1.6-0+deb12u1', 5],
    ['ffmpeg version n7.0.2 Copyright (c) 2000-2024', 'n7.0.2', 7],
    ['ffmpeg version 7.1-static https://johnvansickle.com/ffmpeg/', '7.1-static', 7],
    ['ffprobe version 4.4.2-0ubuntu0.22.04.1 Copyright', '4.4.2-0ubuntu0.22.04.1', 4],
    ['ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/', 'N-47683-g0e8eb07980-static', null],
  ])('reads %s', (line, version, major) => {
    expect(parseToolVersion(`${line}\nconfiguration: --enable-gpl\n`)).toEqual({ version, major });
  });

  it('answers null for output that is not a version banner', () => {
    expect(parseToolVersion('sox: SoX v14.4.2')).toBeNull();
  });
});

describe('selectMediaTool', () => {
  it('uses FFMPEG_PATH when set, without looking further', async () => {
    const probe = probeOf({ '/opt/ffmpeg/bin/ffmpeg': banner('ffmpeg', '7.1'), ffmpeg: banner('ffmpeg', '6.0') });
    const s = await selectMediaTool('ffmpeg', candidates({ configured: '/opt/ffmpeg/bin/ffmpeg' }), probe);
    expect(s).toEqual({ choice: { tool: 'ffmpeg', path: '/opt/ffmpeg/bin/ffmpeg', source: 'configured', version: '7.1', major: 7 }, warnings: [] });
    expect(probe.asked).toEqual(['/opt/ffmpeg/bin/ffmpeg']);
  });

  it('takes a distribution release below 6 from FFMPEG_PATH (Debian 12 maintains 5.1): the operator chose it', async () => {
    const s = await selectMediaTool('ffmpeg', candidates({ configured: '/usr/bin/ffmpeg' }), probeOf({ '/usr/bin/ffmpeg': banner('ffmpeg', '5.1.6-0+deb12u1') }));
    expect(s).toEqual({ choice: { tool: 'ffmpeg', path: '/usr/bin/ffmpeg', source: 'configured', version: '5.1.6-0+deb12u1', major: 5 }, warnings: [] });
  });

  it('refuses to start with an FFMPEG_PATH or FFPROBE_PATH that does not run', async () => {
    await expect(selectMediaTool('ffmpeg', candidates({ configured: '/nope/ffmpeg' }), probeOf({}))).rejects.toThrow(/^FFMPEG_PATH=\/nope\/ffmpeg does not run as ffmpeg/);
    await expect(selectMediaTool('ffprobe', candidates({ system: 'ffprobe', configured: '/bin/true' }), probeOf({ '/bin/true': '' }))).rejects.toThrow(/^FFPROBE_PATH=/);
  });

  it.each(['6.0', '6.1.1-3ubuntu5', '7.1-2+b1', 'n8.0'])('prefers the system ffmpeg %s (a release ≥ 6) to the bundled one, silently', async (version) => {
    const s = await selectMediaTool('ffmpeg', candidates(), probeOf({ ffmpeg: banner('ffmpeg', version) }));
    expect(s.choice).toMatchObject({ path: 'ffmpeg', source: 'system', version });
    expect(s.warnings).toEqual([]);
  });

  it.each([
    ['is 5.1 (Debian 12)', { ffmpeg: banner('ffmpeg', '5.1.6-0+deb12u1') }, "the system's ffmpeg 5.1.6-0+deb12u1 is not a release ≥ 6"],
    ['is a git snapshot of unknown age', { ffmpeg: banner('ffmpeg', 'N-112000-gabc-static') }, "the system's ffmpeg N-112000-gabc-static is not a release ≥ 6"],
    ['is absent', {}, ''],
  ])('falls back to the bundled ffmpeg when the system one %s, warning with the bundled version', async (_why, outputs, skipped) => {
    const s = await selectMediaTool('ffmpeg', candidates(), probeOf(outputs));
    expect(s.choice).toEqual({ tool: 'ffmpeg', path: BUNDLED.path, source: 'bundled', version: '20181210-g0e8eb07980', major: null });
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toContain('Using the bundled ffmpeg 20181210-g0e8eb07980');
    expect(s.warnings[0]).toContain('set FFMPEG_PATH');
    if (skipped) expect(s.warnings[0]).toContain(skipped);
  });

  it('answers no choice, with a warning, when nothing runs (the local renderers then fail as unavailable)', async () => {
    const s = await selectMediaTool('ffprobe', candidates({ system: 'ffprobe', bundled: () => Promise.reject(new Error('not shipped for this platform')) }), probeOf({}));
    expect(s.choice).toBeNull();
    expect(s.warnings).toEqual([expect.stringContaining('No ffprobe can be run')]);
  });
});
