import { AppConfig, ConfigError } from './config/index.js';
import { ShutdownCoordinator, type ShutdownStep } from './platform/lifecycle/index.js';

/** One JSON log line on stdout, whatever the log level: operators and tests wait for these. */
export function logLine(level: string, fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, ...fields })}\n`);
}

/** Loads the configuration or stops the process with one readable line naming the variable. */
export function loadConfigOrExit(): AppConfig {
  try {
    return AppConfig.fromProcessEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

/**
 * Starts a process (`what`: api, worker). A start that fails, such as a wiring mistake the boot
 * checks catch (a job type without exactly one handler, a route without an access declaration),
 * stops it with one readable line and exit code 1 rather than a stack trace.
 */
export async function startOrExit(what: string, start: () => Promise<void>, exit: (code: number) => void = (code) => process.exit(code)): Promise<void> {
  try {
    await start();
  } catch (err) {
    logLine('error', { msg: `${what} failed to start`, err: err instanceof Error ? err.message : String(err) });
    exit(1);
  }
}

/**
 * From now on SIGTERM and SIGINT stop the process through `steps`, within SHUTDOWN_TIMEOUT_SECONDS
 * (see ShutdownCoordinator): one line when the stop begins, one when it ends, exit 0, or exit 1 if
 * the bound passes or a second signal comes.
 */
export function stopOnSignals(role: string, config: AppConfig, steps: ShutdownStep[]): void {
  new ShutdownCoordinator({
    role,
    timeoutMs: config.shutdownTimeoutSeconds * 1000,
    steps,
    log: logLine,
    exit: (code) => process.exit(code),
  }).listen();
}
