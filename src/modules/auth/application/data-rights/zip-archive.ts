import yazl from 'yazl';

/** One file of an archive: its path inside and its bytes. */
export interface ArchiveEntry {
  path: string;
  body: Buffer;
}

/** A ZIP of the entries, in memory (JSON compressed, media stored as is: it is compressed already). */
export function zipArchive(entries: readonly ArchiveEntry[], mtime: Date): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(e.body, e.path, { mtime, compress: e.path.endsWith('.json') });
  zip.end();
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
