import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, VirtualClock } from '../../src/clock.js';
import { Sandbox as SandboxService } from '../../src/sandbox/index.js';
import { BASH_MAX_TIMEOUT_MS } from '../../src/tools/bash.js';
import { createBuiltinTools } from '../../src/tools/index.js';
import {
  hostProcessesWith,
  makeContext,
  makeSandbox,
  type Sandbox,
  tool,
  uniqueSleep,
  untilGoneOnHost,
  withTurn,
} from './helpers.js';

/** Lets real I/O progress until the tool has started its child and set its timer. */
async function untilTimerSet(clock: VirtualClock): Promise<void> {
  while (clock.pending === 0) await new Promise((resolve) => setImmediate(resolve));
}

describe('Bash', () => {
  let box: Sandbox;
  const bash = tool('Bash');
  const run = (input: Record<string, unknown>) => bash.run(input, makeContext(box.workspace));

  beforeAll(async () => {
    box = await makeSandbox();
    await box.write({ 'hello.txt': 'hi there\n' });
  });
  afterAll(() => box.cleanup());

  it('runs bash -c in the workspace and reports the exit code', async () => {
    const result = await run({ command: 'pwd; cat hello.txt; [[ -n "$BASH_VERSION" ]] && echo bash' });
    expect(result).toEqual({ content: `${box.workspace}\nhi there\nbash\n[exit code: 0]` });
  });

  it('captures stderr with stdout and marks a failing command as an error', async () => {
    const result = await run({ command: 'echo to-stderr >&2; exit 3' });
    expect(result).toEqual({ content: 'to-stderr\n[exit code: 3]', isError: true });
    expect(await run({ command: 'true' })).toEqual({ content: '(no output)\n[exit code: 0]' });
  });

  it('gives the command an empty stdin instead of hanging', async () => {
    expect(await run({ command: 'cat; echo done' })).toEqual({ content: 'done\n[exit code: 0]' });
  });

  it('caps output at 30,000 characters, keeping both ends, and says how much was cut', async () => {
    const result = await run({
      command: "printf 'A%.0s' {1..20000}; printf 'B%.0s' {1..20000}; printf 'C%.0s' {1..10000}",
    });
    expect(result.isError).toBeUndefined();
    const [head, tail] = result.content.split('\n[output truncated: 20000 characters omitted]\n');
    expect(head).toBe('A'.repeat(15_000));
    expect(tail).toBe(`${'B'.repeat(5_000)}${'C'.repeat(10_000)}\n[exit code: 0]`);
  });

  it('honours a smaller maxOutputChars', async () => {
    const small = createBuiltinTools({ maxOutputChars: 10 }).find((t) => t.name === 'Bash')!;
    const result = await small.run({ command: 'printf 0123456789abcdefghij' }, makeContext(box.workspace));
    expect(result.content).toBe('01234\n[output truncated: 10 characters omitted]\nfghij\n[exit code: 0]');
  });

  it('kills a command that runs past its timeout (real time, 300 ms)', async () => {
    const started = Date.now();
    const result = await run({ command: 'sleep 5', timeout: 300 });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result).toEqual({
      content: '(no output)\n[timed out after 300 ms; the command and its child processes were killed]',
      isError: true,
    });
  });

  it('times out after 120 s by default, on the injected clock, killing the whole process group', async () => {
    const clock = new VirtualClock();
    await withTurn(
      box.workspace,
      async (sandbox) => {
        const marker = uniqueSleep();
        const pending = bash.run(
          { command: `echo started; sleep ${marker} & echo $! > bg.pid; sleep 5` },
          makeContext(box.workspace, { clock, sandbox }),
        );
        await untilTimerSet(clock);
        expect(clock.nextAt()).toBe(120_000);
        while (!isReadable(`${box.workspace}/bg.pid`)) await new Promise((resolve) => setImmediate(resolve));
        await clock.advance(120_000);
        expect(await pending).toEqual({
          content: 'started\n[timed out after 120000 ms; the command and its child processes were killed]',
          isError: true,
        });
        await untilGoneOnHost(`sleep ${marker}`);
      },
      clock,
    );
  });

  it(`caps the timeout input at ${BASH_MAX_TIMEOUT_MS} ms and uses the configured default`, async () => {
    const clock = new VirtualClock();
    const pending = bash.run(
      { command: 'sleep 5', timeout: 10_000_000 },
      makeContext(box.workspace, { clock }),
    );
    await untilTimerSet(clock);
    expect(clock.nextAt()).toBe(BASH_MAX_TIMEOUT_MS);
    await clock.advance(BASH_MAX_TIMEOUT_MS);
    expect((await pending).content).toContain(`[timed out after ${BASH_MAX_TIMEOUT_MS} ms;`);

    const quick = createBuiltinTools({ bashTimeoutMs: 5_000 }).find((t) => t.name === 'Bash')!;
    const clock2 = new VirtualClock();
    const pending2 = quick.run({ command: 'sleep 5' }, makeContext(box.workspace, { clock: clock2 }));
    await untilTimerSet(clock2);
    expect(clock2.nextAt()).toBe(5_000);
    await clock2.advance(5_000);
    expect((await pending2).content).toContain('[timed out after 5000 ms;');
  });

  it('stops the command and its children when the signal aborts', async () => {
    const clock = new VirtualClock();
    await withTurn(
      box.workspace,
      async (sandbox) => {
        const controller = new AbortController();
        const marker = uniqueSleep();
        const pending = bash.run(
          { command: `sleep ${marker} & echo $! > abort.pid; wait` },
          makeContext(box.workspace, { clock, signal: controller.signal, sandbox }),
        );
        await untilTimerSet(clock);
        // Wait for the child to record its pid before stopping it.
        while (!isReadable(`${box.workspace}/abort.pid`))
          await new Promise((resolve) => setImmediate(resolve));
        controller.abort();
        const result = await pending;
        expect(result.isError).toBe(true);
        expect(result.content).toContain('[stopped: the command was aborted and its processes were killed]');
        expect(clock.pending).toBe(0);
        await untilGoneOnHost(`sleep ${marker}`);
      },
      clock,
    );
  });

  it('does not start a command when the turn is stopped while its sandbox starts', async () => {
    const controller = new AbortController();
    const pending = bash.run(
      { command: 'touch started.flag' },
      makeContext(box.workspace, { signal: controller.signal }),
    );
    // run() is now waiting for the sandbox to start; the stop lands in between.
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.content).toContain('not run');
    expect(isReadable(`${box.workspace}/started.flag`)).toBe(false);
  });

  it('does not start a command when the turn is already stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await bash.run(
      { command: 'touch should-not-exist' },
      makeContext(box.workspace, { signal: controller.signal }),
    );
    expect(result).toEqual({ content: 'The command was not run: the turn was stopped.', isError: true });
    expect(isReadable(`${box.workspace}/should-not-exist`)).toBe(false);
  });

  it('ends background processes the command leaves behind, a setsid one too, without waiting for them', async () => {
    await withTurn(box.workspace, async (sandbox) => {
      const [plain, detached] = [uniqueSleep(), uniqueSleep()];
      const result = await bash.run(
        {
          command: `sleep ${plain} & setsid bash -c 'echo $$ > holder.pid; exec sleep ${detached}' & until [ -s holder.pid ]; do :; done; echo left`,
        },
        makeContext(box.workspace, { sandbox }),
      );
      expect(result.content).toBe('left\n[exit code: 0]');
      // The command's PID namespace ended with it.
      expect(hostProcessesWith(`sleep ${plain}`)).toEqual([]);
      expect(hostProcessesWith(`sleep ${detached}`)).toEqual([]);
    });
  });

  it('with the sandbox off, does not wait for a process that left the group but holds the output open', async () => {
    const off = new SandboxService({ mode: 'off' });
    const turn = off.openTurn(box.workspace, systemClock);
    const marker = uniqueSleep();
    try {
      const result = await bash.run(
        {
          command: `setsid bash -c 'echo $$ > off-holder.pid; exec sleep ${marker}' & until [ -s off-holder.pid ]; do :; done; cat off-holder.pid`,
        },
        makeContext(box.workspace, { sandbox: turn }),
      );
      expect(result.content).toContain('still holds its output; it is stopped when the turn ends');
      expect(result.content).toContain('[exit code: 0]');
    } finally {
      await turn.close();
      for (const pid of hostProcessesWith(`sleep ${marker}`)) process.kill(pid, 'SIGKILL');
    }
  });

  it('summarizes and scopes by the exact command', () => {
    expect(bash.toolClass).toBe('execute');
    expect(bash.summarize({ command: 'npm test' })).toBe('Bash: npm test');
    const long = bash.summarize({ command: `echo ${'x'.repeat(200)}\nrm -rf /` });
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long.endsWith('…')).toBe(true);
    expect(bash.scopeKey({ command: 'npm test' })).toBe('npm test');
    expect(bash.scopeKey({ command: 'npm test && rm -rf .' })).toBe('npm test && rm -rf .');
  });

  it('answers bad input with an error naming the field', async () => {
    expect((await run({})).content).toMatch(/^Invalid input for Bash: command: /);
    expect((await run({ command: 'true', timeout: -5 })).content).toMatch(
      /^Invalid input for Bash: timeout: /,
    );
    expect((await run({ command: 'true', timeout: '5s' })).content).toMatch(/timeout: /);
  });
});

function isReadable(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim().length > 0;
  } catch {
    return false;
  }
}
