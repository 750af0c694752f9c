import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { FileTypeValidator } from '@nestjs/common';
import { PNG } from 'pngjs';
import semver from 'semver';

/**
 * What `npm ci` installs must run on every Node that package.json's `engines` accepts: a package
 * whose own `engines.node` is narrower (file-type@22 wants Node >= 22) makes npm warn on the
 * machines we support, and may fail there at run time. Ours is the range the whole tree accepts.
 */
interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  os?: string[];
}

/** A platform binary that npm never installs on Linux (where the service runs) cannot warn there. */
const installsOnLinux = (entry: LockEntry): boolean =>
  entry.os === undefined || entry.os.includes('linux') || (entry.os.every((os) => os.startsWith('!')) && !entry.os.includes('!linux'));

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };

describe('installed dependencies', () => {
  it('every locked package accepts every Node version our engines field accepts', () => {
    const ours = pkg.engines.node;
    const narrower = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && installsOnLinux(entry))
      .flatMap(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        if (node === undefined || semver.validRange(node) === null) return [];
        return semver.subset(ours, node) ? [] : [`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${node}`];
      });
    expect(narrower).toEqual([]);
  });

  it("Nest's FileTypeValidator (the user of file-type) still tells files by their bytes", async () => {
    const png = new PNG({ width: 2, height: 2 });
    const bytes = PNG.sync.write(png);
    const validator = new FileTypeValidator({ fileType: 'image/png' });
    const file = (buffer: Buffer, mimetype: string) => ({ buffer, mimetype, size: buffer.length }) as unknown as Parameters<FileTypeValidator["isValid"]>[0];
    await expect(validator.isValid(file(bytes, 'image/png'))).resolves.toBe(true);
    await expect(validator.isValid(file(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/png'))).resolves.toBe(false);
    const gif = file(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'image/png');
    await expect(validator.isValid(gif)).resolves.toBe(false);
    expect(validator.buildErrorMessage(gif)).toContain('current file type is image/gif');
  });
});
