import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfigOrExit } from '../bootstrap.js';
import { dataSourceOptions, resolveDatabaseUrl, stopEmbeddedPostgres } from '../platform/database/index.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

/** `npm run migration:run`: applies pending migrations to the configured database (embedded PGlite when DATABASE_URL is unset). */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const ds = new DataSource({ ...dataSourceOptions(config, await resolveDatabaseUrl(config)), migrationsRun: false });
  try {
    await ds.initialize();
    const ran = await ds.runMigrations({ transaction: 'each' });
    if (ran.length === 0) say('No pending migrations.');
    for (const m of ran) say(`Ran migration ${m.name}`);
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await stopEmbeddedPostgres();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
