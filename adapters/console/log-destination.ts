/**
 * Where the ready bot's logs go while the terminal chat runs. The chat owns
 * the terminal: a log line written to it would land between chat lines, so
 * when stderr is that terminal the logs go to a file in the data directory
 * instead (readable by the bot's user only). Piped or redirected stderr
 * keeps them, as a service manager or a test expects.
 */
import { join } from 'node:path';
import { type DestinationStream, pino } from 'pino';

/** Where the console's logs went: the stream, and the file when it is one. */
export interface ConsoleLogs {
  destination: DestinationStream;
  /** Set when the logs go to a file rather than stderr. */
  file?: string;
}

/** Chooses the log destination for console mode. */
export function consoleLogs(dataDir: string, stderr: NodeJS.WriteStream = process.stderr): ConsoleLogs {
  if (!stderr.isTTY) return { destination: pino.destination({ dest: 2, sync: false }) };
  const file = join(dataDir, 'switchboard.log');
  return { destination: pino.destination({ dest: file, mkdir: true, mode: 0o600, sync: false }), file };
}
