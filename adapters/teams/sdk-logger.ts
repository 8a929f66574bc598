/**
 * The Teams SDK's logger interface over the bot's logger. The SDK logs
 * whole objects (an HTTP error with its request, whose headers hold the
 * bot's bearer token), so only strings and error messages pass, and any
 * `Bearer ...` in them is cut; the SDK's info and debug chatter goes to
 * debug.
 */
import type { AppOptions } from '@microsoft/teams.apps';
import type { Logger } from '../../src/logger.js';

/** The SDK's logger type. */
export type SdkLogger = NonNullable<AppOptions<never>['logger']>;

/** One SDK log call as a line with no token in it. */
export function sdkLine(parts: unknown[]): string {
  return parts
    .map((p) => (typeof p === 'string' ? p : p instanceof Error ? `${p.name}: ${p.message}` : ''))
    .filter((p) => p !== '')
    .join(' ')
    .replace(/Bearer\s+[\w.~+/=-]+/gi, 'Bearer [redacted]');
}

/** The bot's logger as the SDK's, under `name`. */
export function sdkLogger(logger: Logger, name = 'teams-sdk'): SdkLogger {
  const write = (level: 'error' | 'warn' | 'debug', parts: unknown[]) => {
    const line = sdkLine(parts);
    if (line) logger[level]({ sdk: name }, line);
  };
  const self: SdkLogger = {
    error: (...msg: unknown[]) => write('error', msg),
    warn: (...msg: unknown[]) => write('warn', msg),
    info: (...msg: unknown[]) => write('debug', msg),
    debug: (...msg: unknown[]) => write('debug', msg),
    trace: () => undefined,
    log: (level: string, ...msg: unknown[]) =>
      write(level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'debug', msg),
    child: (child: string) => sdkLogger(logger, `${name}/${child}`),
  };
  return self;
}
