/**
 * A real terminal for tests: a program run inside tmux (its own server on a
 * private socket, so nothing else's tmux is touched), driven by send-keys
 * and read back with capture-pane, the way a person types and looks.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A program on a terminal of `width` × `height`. */
export interface Terminal {
  /** Keys as tmux names them (`Enter`, `Up`, `C-c`), or literal text with `{ literal: true }`. */
  keys(keys: string[], options?: { literal?: boolean }): Promise<void>;
  /** Types text literally, then Enter. */
  typeLine(text: string): Promise<void>;
  /** The screen as shown, wrapped lines joined, with the scrollback. */
  screen(): Promise<string>;
  /** Resolves with the screen once `test` holds; rejects with the screen after `timeoutMs`. */
  waitFor(test: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** True once the program has exited. */
  exited(): Promise<boolean>;
  close(): Promise<void>;
}

/** Starts `command` (run by sh in `cwd` with exactly `env`) on a new terminal. */
export async function startTerminal(
  command: string,
  options: { cwd: string; env: Record<string, string>; width?: number; height?: number },
): Promise<Terminal> {
  const socket = `sb-test-${randomBytes(6).toString('hex')}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, '-f', '/dev/null', ...args]);
  const env = Object.entries(options.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await tmux(
    'new-session',
    '-d',
    '-s',
    'main',
    '-x',
    String(options.width ?? 100),
    '-y',
    String(options.height ?? 40),
    '-c',
    options.cwd,
    ...env,
    command,
  );
  // Keep the pane (and what it shows) after the program exits.
  await tmux('set-option', '-t', 'main', 'remain-on-exit', 'on');
  const screen = async () =>
    (await tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', 'main')).stdout.replace(/\s+$/, '');
  const terminal: Terminal = {
    async keys(keys, opts = {}) {
      await tmux('send-keys', '-t', 'main', ...(opts.literal ? ['-l'] : []), ...keys);
    },
    async typeLine(text) {
      await terminal.keys([text], { literal: true });
      await terminal.keys(['Enter']);
    },
    screen,
    async waitFor(test, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = await screen();
        if (test(shown)) return shown;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; the screen shows:\n${shown}`);
        // capture-pane is the only way to look at a terminal; look again shortly.
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async exited() {
      const { stdout } = await tmux('display-message', '-p', '-t', 'main', '#{pane_dead}');
      return stdout.trim() === '1';
    },
    async close() {
      await tmux('kill-server').catch(() => undefined);
    },
  };
  return terminal;
}
