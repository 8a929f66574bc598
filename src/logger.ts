/**
 * Structured logging (pino) with secrets scrubbed from every line. Tokens and
 * keys are removed by value, so a token that ends up inside an error message
 * or a URL is caught too, not only fields named "token".
 */
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** pino level; default `info`. */
  level?: string;
  /** Secret values (tokens, keys) that must never reach a log line. */
  secrets?: readonly string[];
  /** Where lines go; default stdout. Tests pass a capturing stream. */
  destination?: DestinationStream;
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
 * const log = createLogger({ secrets: [config.telegram.token] });
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
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** A logger that drops everything; the default where none is injected. */
export const silentLogger: Logger = pino({ level: 'silent' });
