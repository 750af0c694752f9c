import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { loadConfigOrExit } from '../bootstrap.js';
import { AdminAccounts } from '../modules/auth/index.js';
import { dataSourceOptions, EmbeddedDatabaseInUse, resolveDatabaseUrl, stopEmbeddedPostgres } from '../platform/database/index.js';

const USAGE = 'usage: npm run admin:create -- --email admin@example.com --password <8 to 128 chars>\n' +
  '       (or set ADMIN_EMAIL and ADMIN_PASSWORD)';

const IN_USE_HINT = 'The server is running on this embedded database. Either stop it and run admin:create again, or\n' +
  'restart it with ADMIN_EMAIL and ADMIN_PASSWORD set: the server makes (or promotes) that admin at start-up.';

const MESSAGES = {
  created: 'Created the admin account:',
  promoted: 'Promoted the existing account to admin (its password is unchanged):',
  unchanged: 'Already an admin, nothing to do:',
} as const;

/** `npm run admin:create`: creates the admin account, or promotes an existing user, outside the API. */
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' } }, strict: true });
  const config = loadConfigOrExit();
  const email = values.email ?? config.adminEmail;
  const password = values.password ?? config.adminPassword;
  if (!email || !password) {
    console.error(USAGE);
    return 2;
  }
  // DataSource initialisation applies pending migrations when MIGRATIONS_RUN is on (the default).
  const ds = new DataSource(dataSourceOptions(config, await resolveDatabaseUrl(config)));
  try {
    await ds.initialize();
    const { outcome, weakPassword } = await AdminAccounts.standalone(ds).ensureAdmin(email, password, { refuseGuessable: config.production });
    process.stdout.write(`${MESSAGES[outcome]} ${email.trim().toLowerCase()}\n`);
    if (weakPassword) console.error(`Warning: ${weakPassword}. Production (NODE_ENV=production) refuses it.`);
    return 0;
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await stopEmbeddedPostgres();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`admin:create failed: ${err instanceof Error ? err.message : String(err)}`);
    // The embedded database serves one process: the running server holds it.
    if (err instanceof EmbeddedDatabaseInUse) console.error(IN_USE_HINT);
    process.exit(1);
  },
);
