/**
 * The behaviour every SessionStore shares (user files, project files with a
 * log, memory): the same outcomes for the same data, the same refusals.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import {
  createMemorySessionStore,
  createProjectSessionStore,
  createUserSessionStore,
  type SessionStore,
} from '../../src/store/index.js';
import { message, meta, record, tempDirs } from './helpers.js';
import { type Harness, sessionStoreContract } from './session-store-contract.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

async function fileHarness(sessionsDir: string, store: SessionStore): Promise<Harness> {
  return {
    store,
    async plant(id, recordText, lines = []) {
      await mkdir(sessionsDir, { recursive: true });
      await writeFile(join(sessionsDir, `${id}.json`), recordText);
      const header = `${JSON.stringify({ type: 'switchboard-messages', version: 1, epoch: 'planted' })}\n`;
      await writeFile(
        join(sessionsDir, `${id}.messages.jsonl`),
        header + lines.map((l) => `${l}\n`).join(''),
      );
    },
    async rawRecord(id) {
      return readFile(join(sessionsDir, `${id}.json`), 'utf8').catch(() => undefined);
    },
  };
}

const kinds: Array<[string, () => Promise<Harness>]> = [
  [
    'user store',
    async () => {
      const dir = await dirs.make();
      return fileHarness(dir, createUserSessionStore(dir));
    },
  ],
  [
    'project store',
    async () => {
      const cwd = await dirs.make();
      return fileHarness(join(cwd, '.switchboard', 'sessions'), createProjectSessionStore(cwd));
    },
  ],
  [
    'memory store',
    async () => {
      const store = createMemorySessionStore();
      return {
        store,
        async plant(id, recordText, lines = []) {
          store.putRaw(id, { record: recordText, messages: lines });
        },
        async rawRecord(id) {
          return store.getRaw(id)?.record;
        },
      };
    },
  ],
];

for (const [name, makeHarness] of kinds) sessionStoreContract(name, makeHarness);

describe('message shapes', () => {
  it('stores a content block type added later, but refuses a known type with wrong fields', async () => {
    const store = createMemorySessionStore();
    const future = {
      ...message('a'),
      content: [{ type: 'thinking', thinking: 'hmm' }],
    } as unknown as ReturnType<typeof message>;
    await store.create(record('s1', [future]));
    expect(await store.load('s1')).toMatchObject({ status: 'valid', record: { messages: [future] } });
    const wrong = {
      ...message('a'),
      content: [{ type: 'text', body: 'no text field' }],
    } as unknown as ReturnType<typeof message>;
    await expect(store.append('s1', [wrong], meta('s1'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
  });
});
