import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppError } from '../../../../core/index.js';
import type { TrainingImage } from '../../application/ports/lora-trainer.js';
import { csvField, trainingArchive } from './training-archive.js';

const dir = mkdtempSync(join(tmpdir(), 'training-archive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let written = 0;
/** Writes the archive where `unzip` can read it: the spec checks our bytes with another implementation. */
function onDisk(zip: Buffer): string {
  const path = join(dir, `set-${++written}.zip`);
  writeFileSync(path, zip);
  return path;
}

const unzip = (...args: string[]): Buffer => execFileSync('unzip', args, { maxBuffer: 64 * 1024 * 1024 });
const listed = (path: string): string[] =>
  unzip('-Z1', path)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');

const image = (name: string, contentType: string, caption: string, size = 3000): TrainingImage => ({
  name,
  contentType,
  caption,
  // Distinct, non-trivial bytes per image, so a swapped or truncated entry shows.
  bytes: Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + name.charCodeAt(2)) % 256)),
});

const IMAGES = [
  image('001', 'image/jpeg', 'a photo of LUNA_K7, sunlit film'),
  image('002', 'image/png', 'a photo of LUNA_K7, in a garden, "smiling"'),
  image('003', 'image/webp', 'a photo of LUNA_K7\non two lines'),
];

describe('trainingArchive', () => {
  it('writes each image and its caption file, a ZIP unzip tests clean', () => {
    const path = onDisk(trainingArchive(IMAGES, 'flux-dev'));
    expect(listed(path)).toEqual(['001.jpg', '001.txt', '002.png', '002.txt', '003.webp', '003.txt']);
    expect(unzip('-tq', path).toString('utf8')).toMatch(/No errors detected/);
    for (const img of IMAGES) {
      const ext = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' }[img.contentType]!;
      expect(unzip('-p', path, `${img.name}.${ext}`).equals(img.bytes)).toBe(true);
      expect(unzip('-p', path, `${img.name}.txt`).toString('utf8')).toBe(img.caption);
    }
  });

  it('adds captions.csv for sdxl, with commas, quotes and line breaks escaped', () => {
    const path = onDisk(trainingArchive(IMAGES, 'sdxl'));
    expect(listed(path)).toEqual(['001.jpg', '001.txt', '002.png', '002.txt', '003.webp', '003.txt', 'captions.csv']);
    expect(unzip('-p', path, 'captions.csv').toString('utf8')).toBe(
      [
        'image_file,caption',
        '001.jpg,"a photo of LUNA_K7, sunlit film"',
        '002.png,"a photo of LUNA_K7, in a garden, ""smiling"""',
        '003.webp,"a photo of LUNA_K7\non two lines"',
        '',
      ].join('\n'),
    );
  });

  it('keeps the captions of a flux set in their .txt files only', () => {
    expect(listed(onDisk(trainingArchive(IMAGES, 'flux-dev')))).not.toContain('captions.csv');
  });

  it('answers the same bytes for the same images', () => {
    expect(trainingArchive(IMAGES, 'sdxl').equals(trainingArchive(IMAGES, 'sdxl'))).toBe(true);
  });

  it('writes a valid empty archive', () => {
    const zip = trainingArchive([], 'flux-dev');
    expect(zip).toHaveLength(22);
    // unzip exits non-zero on an empty archive by design; Python's reader tells a valid one apart.
    const count = execFileSync('python3', ['-c', 'import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))', onDisk(zip)]);
    expect(count.toString('utf8').trim()).toBe('0');
  });

  it('holds a large image whole', () => {
    const big = image('001', 'image/png', 'a photo of LUNA_K7', 3 * 1024 * 1024 + 17);
    expect(unzip('-p', onDisk(trainingArchive([big], 'flux-dev')), '001.png').equals(big.bytes)).toBe(true);
  });

  it.each([
    ['a path', '../evil'],
    ['a folder', 'a/b'],
    ['an empty name', ''],
    ['a name the sdxl trainer takes for its captions file', 'my_captions'],
    ['a hidden file', '.hidden'],
  ])('refuses %s as an image name', (_what, name) => {
    expect(() => trainingArchive([image(name, 'image/png', 'x')], 'flux-dev')).toThrow(AppError);
  });

  it('refuses two images with the same name, whatever their case', () => {
    expect(() => trainingArchive([image('img', 'image/png', 'x'), image('IMG', 'image/jpeg', 'y')], 'flux-dev')).toThrow(/not a safe, unique file name/);
  });

  it('refuses an image type the trainers do not read', () => {
    let thrown: unknown;
    try {
      trainingArchive([image('001', 'image/tiff', 'x')], 'flux-dev');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('validation_failed');
  });
});

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['a, b', '"a, b"'],
    ['say "hi"', '"say ""hi"""'],
    ['one\r\ntwo', '"one\r\ntwo"'],
  ])('writes %j as %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});
