import { AppConfig, ConfigError } from './config/index.js';

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
