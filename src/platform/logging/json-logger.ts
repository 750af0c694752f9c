import type { LoggerService } from '@nestjs/common';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

/** One JSON object per line on stdout: easy to ship, grep and join on request_id. */
export class JsonLogger implements LoggerService {
  constructor(private readonly level: LogLevel = 'info') {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, ...rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    this.write('error', message, context);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  private write(level: Exclude<LogLevel, 'silent'>, message: unknown, context?: string): void {
    if (LEVELS[level] < LEVELS[this.level]) return;
    // An Error's own fields are not enumerable: without this a failed boot logged `{}` and no reason.
    const fields = message instanceof Error ? { msg: message.message, err: message.name } : typeof message === 'object' && message !== null ? message : { msg: String(message) };
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, context, ...fields })}\n`);
  }
}
