/**
 * After a change the API's prefix check rejects, the repair removes the
 * thinking of every kept turn after the change, not only of the block the
 * 400 names (Prefix checks on thinking blocks page): one failed request,
 * then every later turn goes through. Here the change is an earlier
 * message edited in the saved session, on Sonnet 5.5 with `between_tools`
 * thinking, which takes no block_binding (the 400 outcome).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession } from '../../src/session/index.js';
import { createUserSessionStore } from '../../src/store/index.js';
import { API_KEY, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();

describe('repairing a conversation the prefix check rejects', () => {
  it('drops the thinking after the change in one go: one 400, then every turn succeeds', async () => {
    const dir = join(fx.cwd, '.sessions');
    const open = (resumeSessionId?: string) =>
      InteractiveSession.open({
        cwd: fx.cwd,
        toolEnv: {},
        sessionStore: createUserSessionStore(dir),
        provider: new AnthropicProvider({
          apiKey: API_KEY,
          baseURL: fx.fake.url,
          maxRetries: 0,
          model: 'claude-sonnet-5-5',
          thinking: 'between_tools',
        }),
        ...(resumeSessionId ? { resumeSessionId } : {}),
      });
    const first = fx.track(await open());
    for (const n of [1, 2, 3, 4]) {
      fx.fake.enqueue({ thinking: [`thought ${n}`], text: `reply ${n}` });
      await (await first.submit(`message ${n}`)).completed;
    }
    const id = first.getSession().getSessionId();
    await first.close();
    // Someone edits the first message of the saved conversation: everything after it was thought against the old text.
    const file = (await readdir(dir)).find((f) => f.startsWith(id) && f.endsWith('.jsonl')) as string;
    const text = await readFile(join(dir, file), 'utf8');
    await writeFile(join(dir, file), text.replace('message 1', 'message one'));

    const again = fx.track(await open(id));
    const rec = recordEvents(again);
    const before = fx.fake.log.length;
    for (const n of [5, 6, 7, 8]) {
      fx.fake.enqueue({ thinking: [`thought ${n}`], text: `reply ${n}` });
      const result = await (await again.submit(`message ${n}`)).completed;
      expect(result.response).toContain(`reply ${n}`);
    }
    const after = fx.fake.log.slice(before);
    // One refused request (the first after the edit), then four that went through: no k-1 failures in a row.
    expect(after.filter((e) => e.usage === undefined)).toHaveLength(1);
    expect(after.filter((e) => e.usage !== undefined)).toHaveLength(4);
    expect(
      rec
        .of('notice')
        .map(([n]) => n)
        .join('\n'),
    ).toMatch(/would not take back 4 earlier thinking blocks/);
    // The thinking written since the repair goes back whole.
    expect(JSON.stringify(fx.fake.requests.at(-1).messages)).toContain('"type":"thinking"');
  });
});
