/**
 * Bash in the sandbox, from the outside: the model (the fake Messages API)
 * asks an InteractiveSession in bypassPermissions for the commands an
 * adversarial review used to reach the bot's secrets, its process and other
 * chats. The tool results the model got back hold none of it, and the bot
 * keeps answering.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaked, SECRETS, useSandboxWorld } from './world.js';

/** Host processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').includes(marker)) {
        found.push(Number(name));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Resolves once no host process carries `marker` (the test's timeout bounds the wait). */
async function untilNoProcessWith(marker: string): Promise<void> {
  while (processesWith(marker).length > 0) await new Promise((resolve) => setImmediate(resolve));
}

/** Bash that prints `max=N`, the most processes seen in the sandbox over 2 s, using builtins only. */
const COUNT_PROCESSES =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's array length, not a template.
  'end=$((SECONDS+2)); max=0; while ((SECONDS<end)); do p=(/proc/[0-9]*); ((${#p[@]}>max)) && max=${#p[@]}; done; echo "max=$max"';

describe('Bash in the sandbox', () => {
  const fx = useSandboxWorld();

  it('reaches neither .env, the data directory, another chat, the bot process nor the host /tmp', async () => {
    const session = fx.session();
    const w = fx.world;
    const results = await fx.turn(session, [
      { name: 'Bash', input: { command: 'cat ../.env ../../.env' } },
      {
        name: 'Bash',
        input: { command: `cat ${w.envFile}; ls -la ${w.dataDir}; cat ${w.dataDir}/sessions/*` },
      },
      { name: 'Bash', input: { command: 'ls ../b; cat ../b/notes.txt' } },
      { name: 'Bash', input: { command: `cat ${w.outside}/secret.txt; ls ${w.root}` } },
      {
        name: 'Bash',
        input: {
          command: "echo ppid=$PPID; tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ",
        },
      },
      { name: 'Bash', input: { command: 'ls /proc | grep -c "^[0-9]"; cat /etc/shadow; ls /tmp' } },
      { name: 'Bash', input: { command: 'touch /usr/planted 2>&1; echo x > /etc/planted 2>&1; echo done' } },
    ]);
    const all = results.map((r) => r.text).join('\n');
    expect(leaked(all)).toEqual([]);
    expect(results[0]?.text).toContain('No such file or directory');
    expect(results[1]?.text).toContain('No such file or directory');
    expect(results[2]?.text).toContain('No such file or directory');
    expect(results[3]?.text).toContain('No such file or directory');
    // The parent is the init of the command's own PID namespace (bubblewrap, started with no environment).
    expect(results[4]?.text).toContain('ppid=1');
    expect(results[4]?.text).not.toContain('SWITCHBOARD_TEST_PLANTED_SECRET');
    // A PID namespace of its own: a handful of processes, not the host's.
    expect(Number(results[5]?.text.split('\n')[0])).toBeLessThan(10);
    expect(results[6]?.text).toContain('Read-only file system');
    expect(existsSync('/usr/planted')).toBe(false);
  });

  it('sees only an allowlisted environment', async () => {
    const session = fx.session();
    const [result] = await fx.turn(session, [{ name: 'Bash', input: { command: 'env' } }]);
    const names = (result?.text ?? '')
      .split('\n')
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => line.slice(0, line.indexOf('=')));
    const allowed = /^(PATH|HOME|TMPDIR|SHELL|TERM|LANG|TZ|LC_[A-Z]+|PWD|OLDPWD|SHLVL|_)$/;
    expect(names.length).toBeGreaterThan(3);
    expect(names.filter((name) => !allowed.test(name))).toEqual([]);
    expect(leaked(result?.text ?? '')).toEqual([]);
  });

  it("`kill -9 $PPID` and `kill -STOP $PPID` reach only the command's own sandbox; the bot answers", async () => {
    const session = fx.session();
    const results = await fx.turn(session, [
      { name: 'Bash', input: { command: 'kill -9 $PPID; kill -STOP $PPID; kill -9 -1; echo survived' } },
      { name: 'Read', input: { file_path: 'missing.txt' } },
      { name: 'Bash', input: { command: 'echo back' } },
    ]);
    // The namespace's init ignores signals from inside; `kill -1` reaches only the command's own processes.
    expect(results[0]?.text).not.toContain('the sandbox ended');
    // The turn's file helper lives in another sandbox, out of reach: it still answers.
    expect(results[1]?.text).toContain('does not exist');
    expect(results[2]).toEqual({ text: 'back\n[exit code: 0]', isError: false });
    expect(session.getFullHistory().at(-1)).toMatchObject({ role: 'assistant' });
  });

  it('a `setsid` process dies with the turn', async () => {
    const session = fx.session();
    const marker = `${process.pid}4242.5`;
    const [result] = await fx.turn(session, [
      {
        name: 'Bash',
        input: { command: `setsid sleep ${marker} >/dev/null 2>&1 < /dev/null & echo started` },
      },
    ]);
    expect(result?.text).toContain('started');
    await untilNoProcessWith(`sleep ${marker}`);
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('a fork bomb meets the process limit and the bot keeps answering', async () => {
    const session = fx.session({ sandbox: fx.sandbox({ limits: { processes: 48 } }) });
    const results = await fx.turn(session, [
      // The shell counts the sandbox's processes for 2 s with builtins only (a fork could fail).
      { name: 'Bash', input: { command: `bomb() { bomb | bomb & }; bomb; ${COUNT_PROCESSES}` } },
      { name: 'Bash', input: { command: 'echo alive' } },
    ]);
    const max = Number(/max=(\d+)/.exec(results[0]?.text ?? '')?.[1]);
    expect(max).toBeGreaterThan(10);
    // The limit is 48, but one scan of /proc is no snapshot: while the bomb churns, a process
    // read early may exit and a new one appear later in the same scan, and both are counted.
    // Without the limit the bomb reaches thousands in the 2 s; a few over 48 is that scan.
    expect(max).toBeLessThanOrEqual(64);
    expect(results[0]?.text).toMatch(/Resource temporarily unavailable/);
    expect(results[1]).toEqual({ text: 'alive\n[exit code: 0]', isError: false });
    // Another turn in the same session runs as usual afterwards.
    fx.fake.enqueue({ text: 'still here' });
    const { completed } = await session.submit('hello');
    expect((await completed).response).toBe('still here');
  });

  it('writes only into its own workspace, which persists after the turn', async () => {
    const session = fx.session();
    const [result] = await fx.turn(session, [
      { name: 'Bash', input: { command: 'echo made > made.txt && ls' } },
    ]);
    expect(result?.text).toContain('made.txt');
    expect(readFileSync(join(fx.world.chatA, 'made.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(fx.world.workspace, 'made.txt'))).toBe(false);
    expect(SECRETS.token).not.toBe('');
  });
});
