import 'reflect-metadata';
import { resolve } from 'node:path';
import { writeApiDocuments } from '../api-documents.js';

const DEFAULT_DIR = 'docs/api';

/**
 * `npm run docs:export [-- <dir>]`: writes the OpenAPI and AsyncAPI documents to `<dir>` (default
 * docs/api). Built from the application's metadata: no database, Redis or configuration needed.
 */
async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? DEFAULT_DIR);
  for (const file of await writeApiDocuments(dir)) process.stdout.write(`wrote ${file}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`docs export failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
