import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createUserSessionStore, type SessionStore } from '../../src/store/index.js';
import { nextEvent, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
let store: SessionStore;

beforeEach(async () => {
  await writeFile(join(fx.cwd, 'notes.txt'), 'alpha\n');
  store = createUserSessionStore(join(fx.cwd, '.sessions'));
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
function toolResults(body: any): Array<{ tool_use_id: string; content: unknown; is_error?: boolean }> {
  return body.messages.at(-1).content.filter((b: { type: string }) => b.type === 'tool_result');
}

/** A turn that read a file, then asked to write one, left waiting by a process that let go of it. */
async function pausedSession(): Promise<string> {
  const first = fx.session({ sessionStore: store });
  fx.fake.enqueue(
    {
      toolUse: [
        { name: 'Read', input: { file_path: 'notes.txt' } },
        { name: 'Write', input: { file_path: 'out.txt', content: 'written' } },
      ],
    },
    { text: 'done' },
  );
  const asked = nextEvent(first, 'permission_request');
  // submit() resolves once the turn ends when it starts at once: not awaited before the request.
  const submitted = first.submit('read then write');
  const [request] = await asked;
  expect(request.toolName).toBe('Write');
  await first.notePausedTurn({ buttonId: 'b1', requester: 'telegram:1' });
  expect(first.suspend()).toBe(true);
  await (await submitted).completed;
  await first.close();
  return first.getSession().getSessionId();
}

describe('a turn paused for an approval', () => {
  it('is saved before the request is shown, outlives its process, and an Allow runs the call and finishes the turn', async () => {
    const id = await pausedSession();
    const second = fx.session({ sessionStore: store, resumeSessionId: id });
    await second.ready;
    const paused = second.pausedTurn();
    expect(paused?.request.toolName).toBe('Write');
    expect(paused?.host).toEqual({ buttonId: 'b1', requester: 'telegram:1' });
    expect(paused?.results).toHaveLength(1);
    const { completed } = await second.resumePausedTurn('allow');
    expect((await completed).response).toBe('done');
    expect(await readFile(join(fx.cwd, 'out.txt'), 'utf8')).toBe('written');
    const results = toolResults(fx.fake.requests[1]);
    expect(results).toHaveLength(2);
    expect(JSON.stringify(results[0]?.content)).toContain('alpha');
    expect(results[1]?.is_error).toBeFalsy();
    expect(second.pausedTurn()).toBeUndefined();
    // Answered: the record no longer holds a wait.
    await second.close();
    const third = fx.session({ sessionStore: store, resumeSessionId: id });
    await third.ready;
    expect(third.pausedTurn()).toBeUndefined();
    await expect(third.resumePausedTurn('allow')).rejects.toThrow(/expired/);
  });

  it('a Deny after the restart tells the model, and nothing runs', async () => {
    const id = await pausedSession();
    const second = fx.session({ sessionStore: store, resumeSessionId: id });
    await (await second.resumePausedTurn('deny')).completed;
    const results = toolResults(fx.fake.requests[1]);
    expect(results[1]).toMatchObject({ is_error: true });
    expect(JSON.stringify(results[1]?.content)).toContain('refused');
    await expect(readFile(join(fx.cwd, 'out.txt'), 'utf8')).rejects.toThrow();
  });

  it('a wait that was not stored cannot outlive the process: suspend() declines, and the request is answered as before', async () => {
    const unsaved = fx.session();
    fx.fake.enqueue(
      { toolUse: [{ name: 'Write', input: { file_path: 'out.txt', content: 'x' } }] },
      { text: 'ok' },
    );
    const asked = nextEvent(unsaved, 'permission_request');
    const submitted = unsaved.submit('write');
    const [request] = await asked;
    await unsaved.notePausedTurn({ buttonId: 'b2' });
    expect(unsaved.suspend()).toBe(false);
    request.answer('deny');
    expect((await (await submitted).completed).response).toBe('ok');
  });

  it('a new prompt gives the wait up: a later answer runs nothing', async () => {
    const id = await pausedSession();
    const second = fx.session({ sessionStore: store, resumeSessionId: id });
    fx.fake.enqueue({ text: 'next' });
    await (await second.submit('something else')).completed;
    await expect(second.resumePausedTurn('allow')).rejects.toThrow(/expired/);
    await expect(readFile(join(fx.cwd, 'out.txt'), 'utf8')).rejects.toThrow();
  });
});
