/**
 * `npm start`: load `.env` (when present), validate the configuration, run
 * every configured platform (the console when none is), and stop gracefully
 * on SIGINT / SIGTERM.
 *
 * Exit codes: 0 after a clean stop (or `--help`, `--version`), 1 when
 * start-up fails (a platform rejects its token), 2 when the configuration is
 * invalid or a configured platform's package is not installed.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/index.js';
import { startSwitchboard } from './app.js';
import { cliAnswer, settingsReference } from './cli.js';
import { isErrorCode } from './errors.js';
import { requirePlatformPackages } from './platform-packages.js';

async function main(): Promise<number> {
  const answer = cliAnswer(process.argv.slice(2));
  if (answer !== undefined) {
    process.stdout.write(answer);
    return 0;
  }
  // Node's --env-file exits when the file is missing; a fresh clone has none.
  if (existsSync('.env')) process.loadEnvFile('.env');

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ env: process.env, argv: process.argv.slice(2) });
  } catch (err) {
    if (isErrorCode(err, 'CONFIG_INVALID')) {
      process.stderr.write(`${err.message}\nEvery setting is described in ${settingsReference()}\n`);
      return 2;
    }
    throw err;
  }
  try {
    requirePlatformPackages(config);
  } catch (err) {
    if (!isErrorCode(err, 'CONFIG_INVALID')) throw err;
    process.stderr.write(err.message);
    return 2;
  }

  let app: Awaited<ReturnType<typeof startSwitchboard>>;
  try {
    app = await startSwitchboard(config);
  } catch (err) {
    process.stderr.write(
      `switchboard could not start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }

  let stopping: Promise<number> | undefined;
  const stop = (reason: string): Promise<number> => {
    stopping ??= (async () => {
      app.logger.info({ reason }, 'stopping');
      await app.stop();
      return 0;
    })();
    return stopping;
  };

  return new Promise<number>((resolve) => {
    // `npm start | head`: once the reader is gone every write fails with EPIPE.
    // Stop as for a signal instead of writing on into a closed pipe forever.
    for (const stream of [process.stdout, process.stderr]) {
      stream.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE') return;
        if (stopping) return;
        stop('output closed').then(resolve, () => resolve(1));
      });
    }
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        // A second signal while stopping means "now".
        if (stopping) process.exit(1);
        stop(signal).then(resolve, () => resolve(1));
      });
    }
    // The terminal's input ended (piped input, or the operator left): finish the running replies, then stop.
    for (const adapter of app.adapters) {
      adapter.inputEnded?.then(async () => {
        await app.bot.idle();
        stop('input closed').then(resolve, () => resolve(1));
      });
    }
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `switchboard crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
