import { crc32 } from 'node:zlib';
import { AppError } from '../../../../core/index.js';
import type { LoraBaseModel } from '../../../../config/index.js';
import type { TrainingImage } from '../../application/ports/lora-trainer.js';

/** The extensions both trainers recognise as images (flux-fine-tuner `caption.py`, cog-sdxl `preprocess.py`). */
const EXTENSIONS: Readonly<Record<string, string>> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

/** A name stem that cannot climb out of the trainer's extraction folder or clash with our own files. */
const SAFE_STEM = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

// Without zip64 records a stored archive holds at most this many entries and bytes.
const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;

// A fixed modification time (1980-01-01 00:00, the DOS epoch) keeps the same images the same bytes.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

interface Entry {
  name: string;
  data: Buffer;
}

/**
 * The training set as the trainers read it: a flat ZIP with `<stem>.<ext>` and its caption in
 * `<stem>.txt` per image (flux-fine-tuner skips auto-captioning when every image has one), plus
 * `captions.csv` (`image_file,caption`) for sdxl, whose preprocessing reads captions only from a CSV.
 */
export function trainingArchive(images: readonly TrainingImage[], baseModel: LoraBaseModel): Buffer {
  const entries: Entry[] = [];
  const rows: string[] = ['image_file,caption'];
  const stems = new Set<string>();
  for (const image of images) {
    const imageFile = `${checkedStem(image.name, stems)}.${extensionOf(image)}`;
    entries.push({ name: imageFile, data: image.bytes }, { name: `${image.name}.txt`, data: Buffer.from(image.caption, 'utf8') });
    rows.push(`${csvField(imageFile)},${csvField(image.caption)}`);
  }
  if (baseModel === 'sdxl') entries.push({ name: 'captions.csv', data: Buffer.from(`${rows.join('\n')}\n`, 'utf8') });
  return storedZip(entries);
}

function checkedStem(stem: string, seen: Set<string>): string {
  // cog-sdxl takes any file whose name contains `caption` for the captions CSV; case-insensitive
  // file systems would merge stems that differ only in case.
  if (!SAFE_STEM.test(stem) || /caption/i.test(stem) || seen.has(stem.toLowerCase())) {
    throw new AppError('validation_failed', `The training image name "${stem.slice(0, 80)}" is not a safe, unique file name.`);
  }
  seen.add(stem.toLowerCase());
  return stem;
}

function extensionOf(image: TrainingImage): string {
  const ext = EXTENSIONS[image.contentType.toLowerCase()];
  if (!ext) throw new AppError('validation_failed', `A training image of type ${image.contentType} cannot be sent to the trainer.`);
  return ext;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A ZIP with every entry stored (images are already compressed; deflating them gains nothing). */
function storedZip(entries: readonly Entry[]): Buffer {
  if (entries.length > MAX_ENTRIES) throw new AppError('validation_failed', 'Too many files for one training archive.');
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(entry.data);
    const local = localHeader(name, crc, entry.data.length);
    centrals.push(centralHeader(name, crc, entry.data.length, offset));
    locals.push(local, entry.data);
    offset += local.length + entry.data.length;
    if (offset > MAX_OFFSET) throw new AppError('validation_failed', 'The training images are too large for one archive.');
  }
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endOfDirectory(entries.length, directory.length, offset)]);
}

function localHeader(name: Buffer, crc: number, size: number): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(10, 4); // version 1.0 suffices to extract stored entries
  h.writeUInt16LE(0, 6); // no flags: sizes are known up front, names are ASCII
  h.writeUInt16LE(0, 8); // method 0: stored
  h.writeUInt16LE(DOS_TIME, 10);
  h.writeUInt16LE(DOS_DATE, 12);
  h.writeUInt32LE(crc, 14);
  h.writeUInt32LE(size, 18);
  h.writeUInt32LE(size, 22);
  h.writeUInt16LE(name.length, 26);
  h.writeUInt16LE(0, 28);
  return Buffer.concat([h, name]);
}

function centralHeader(name: Buffer, crc: number, size: number, offset: number): Buffer {
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(20, 4); // made by: MS-DOS attributes, spec 2.0
  h.writeUInt16LE(10, 6);
  h.writeUInt16LE(0, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(DOS_TIME, 12);
  h.writeUInt16LE(DOS_DATE, 14);
  h.writeUInt32LE(crc, 16);
  h.writeUInt32LE(size, 20);
  h.writeUInt32LE(size, 24);
  h.writeUInt16LE(name.length, 28);
  // extra length, comment length, disk number, internal and external attributes: all zero
  h.writeUInt32LE(offset, 42);
  return Buffer.concat([h, name]);
}

function endOfDirectory(count: number, size: number, offset: number): Buffer {
  const h = Buffer.alloc(22);
  h.writeUInt32LE(0x06054b50, 0);
  h.writeUInt16LE(count, 8);
  h.writeUInt16LE(count, 10);
  h.writeUInt32LE(size, 12);
  h.writeUInt32LE(offset, 16);
  return h;
}
