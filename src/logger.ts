/**
 * Structured logging (pino) with secrets scrubbed from every line. Tokens and
 * keys are removed by value, so a token that ends up inside an error message
 * or a URL is caught too, not only fields named "token".
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { isatty } from 'node:tty';
import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** pino level; default `info`. */
  level?: string;
  /** Secret values (tokens, keys) that must never reach a log line. */
  secrets?: readonly string[];
  /** Where lines go; default `fd`. Tests pass a capturing stream (JSON lines). */
  destination?: DestinationStream;
  /** File descriptor to write to when no destination or file is given: 1 (stdout, default) or 2. */
  fd?: 1 | 2;
  /** Append to this file instead of a descriptor (created if missing). */
  file?: string;
  /**
   * `json`: one JSON object a line, for log collectors. `pretty`: a readable
   * line per entry. `auto` (default): pretty when writing to a terminal,
   * JSON otherwise (a file, a pipe, a collector).
   */
  format?: 'auto' | 'pretty' | 'json';
}

const MIN_SECRET_LENGTH = 6;

/** Replaces every occurrence of each secret in `text` with `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * @example
 * const log = createLogger({ secrets: config.secrets });
 * log.info({ chat }, 'turn started');
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH);
  return pino(
    {
      level: options.level ?? 'info',
      base: null,
      redact: {
        paths: ['token', 'apiKey', '*.token', '*.apiKey', 'headers.authorization', '*.headers.authorization'],
        censor: '[redacted]',
      },
      hooks: secrets.length ? { streamWrite: (line: string) => scrubSecrets(line, secrets) } : {},
    },
    options.destination ?? destinationFor(options),
  );
}

/** The stream a logger without an injected destination writes to. */
function destinationFor(options: LoggerOptions): DestinationStream {
  if (options.file) createPrivately(options.file);
  const fd = options.fd ?? 1;
  const terminal = !options.file && isatty(fd);
  const format = options.format ?? 'auto';
  if (format === 'pretty' || (format === 'auto' && terminal)) {
    return pretty({
      destination: options.file ?? fd,
      colorize: terminal,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      mkdir: true,
      append: true,
    });
  }
  return options.file
    ? pino.destination({ dest: options.file, sync: false, mkdir: true, append: true })
    : pino.destination({ dest: fd, sync: false });
}

/**
 * Creates the log file, when missing, readable by the bot's user only, like
 * every other file it writes: logs name chats, people and tools. An existing
 * file keeps the mode its owner gave it.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  closeSync(openSync(file, 'a', 0o600));
}

/** A logger that drops everything; the default where none is injected. */
export const silentLogger: Logger = pino({ level: 'silent' });
