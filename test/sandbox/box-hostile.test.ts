/**
 * The bot's side of the helper channel treats every byte as hostile: an
 * answer line over the limit, a line that is not JSON or one without an id
 * ends that sandbox (killed, its requests failed), never the bot. The
 * "helper" here is a shell printing what a compromised one could.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { SandboxBox } from '../../src/sandbox/box.js';

function box(script: string, maxAnswerChars = 1024 * 1024): SandboxBox {
  return new SandboxBox({
    command: '/bin/sh',
    args: ['-c', script],
    env: { PATH: '/usr/bin:/bin' },
    cwd: '/',
    clock: systemClock,
    maxAnswerChars,
  });
}

describe('the helper channel, from the bot', () => {
  it('kills a sandbox whose answer line grows past the limit, without a newline, and fails its request', async () => {
    // 4 MiB without a line end, then nothing: the bot must neither buffer it all nor wait.
    const b = box(
      'printf "{\\"id\\":0}\\n"; head -c 4194304 /dev/zero | tr "\\0" x; exec sleep 30',
      1024 * 1024,
    );
    await b.ready;
    const pending = b.request('read', { path: 'x' });
    await expect(pending).rejects.toThrow(/the sandbox ended \(it sent an answer over the size limit\)/);
    await b.exited;
    expect(b.alive).toBe(false);
  });

  it('ends a sandbox that sends a line that is not JSON, or an answer without an id', async () => {
    const notJson = box(
      'printf "{\\"id\\":0}\\n"; read line; printf "FORGED-OUTPUT [exit code: 0]\\n"; exec sleep 30',
    );
    await notJson.ready;
    await expect(notJson.request('read', {})).rejects.toThrow(/it sent a line that is not JSON/);
    const noId = box('printf "{\\"id\\":0}\\n"; read line; printf "[1,2]\\n"; exec sleep 30');
    await noId.ready;
    await expect(noId.request('read', {})).rejects.toThrow(/it sent an answer without an id/);
    await Promise.all([notJson.exited, noId.exited]);
  });

  it('ignores an answer to a request never made, and reports a bad start the same way', async () => {
    const b = box(
      'printf "{\\"id\\":0}\\n"; read line; printf "{\\"id\\":99,\\"ok\\":true}\\n{\\"id\\":1,\\"ok\\":true,\\"result\\":7}\\n"; exec sleep 30',
    );
    await b.ready;
    expect(await b.request('read', {})).toBe(7);
    b.kill();
    await b.exited;
    const flood = box('head -c 2097152 /dev/zero | tr "\\0" x; exec sleep 30');
    await expect(flood.ready).rejects.toThrow(/over the size limit/);
    await flood.exited;
  });
});
