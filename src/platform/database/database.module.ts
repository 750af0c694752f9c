import { Global, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/index.js';
import { MIGRATIONS } from '../../../migrations/index.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
import { PreparedReads } from './prepared-reads.js';
import { markSocketErrors } from './socket-errors.js';

export { EmbeddedDatabaseInUse } from './embedded-postgres.js';

let embedded: EmbeddedPostgres | undefined;

/** Resolves the database URL, starting the embedded PostgreSQL when none is configured. */
export async function resolveDatabaseUrl(config: AppConfig): Promise<string> {
  if (config.databaseUrl) return config.databaseUrl;
  embedded ??= await startEmbeddedPostgres(config.dataDir, config.dbPoolSize + 4);
  new Logger('Database').log(`embedded PostgreSQL (PGlite) serving ${config.dataDir}/pglite on a Unix socket in ${embedded.socketDir}`);
  return embedded.url;
}

export async function stopEmbeddedPostgres(): Promise<void> {
  const e = embedded;
  embedded = undefined;
  await e?.stop();
}

export function dataSourceOptions(config: AppConfig, url: string) {
  return {
    type: 'postgres' as const,
    url,
    migrations: MIGRATIONS,
    migrationsRun: config.migrationsRun,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
    // pglite-socket keeps one connection's extended-protocol messages together only inside a
    // transaction; concurrent connections interleave Parse/Bind/Execute ("portal does not exist").
    // PGlite runs one query at a time anyway, so the embedded database gets one connection.
    extra: { max: config.databaseUrl ? config.dbPoolSize : 1, connectionTimeoutMillis: 30_000 },
  };
}

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => ({
        ...dataSourceOptions(config, await resolveDatabaseUrl(config)),
        autoLoadEntities: true,
      }),
      // Every process that talks to the database (API, workers, scripts) marks its sockets' errors.
      dataSourceFactory: async (options) => {
        const ds = await new DataSource(options!).initialize();
        markSocketErrors(ds);
        return ds;
      },
    }),
  ],
  providers: [PreparedReads],
  exports: [PreparedReads],
})
export class DatabaseModule implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await stopEmbeddedPostgres();
  }
}
