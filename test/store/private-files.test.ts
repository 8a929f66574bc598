/**
 * The store's files belong to the bot's user alone, and a session file that
 * has been replaced by a symbolic link is refused: never read, followed,
 * truncated or overwritten.
 */
import { readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import { createUserSessionStore } from '../../src/store/index.js';
import { message, meta, record, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('private store files', () => {
  it('creates the session folder 0700 and every file in it 0600', async () => {
    const parent = await dirs.make();
    const dir = join(parent, 'sessions');
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('hello')]));
    await store.append('s1', [message('reply', 'assistant')], meta('s1', 2));
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, 's1.json'))).toBe(0o600);
    expect(await mode(join(dir, 's1.messages.jsonl'))).toBe(0o600);
  });

  it('refuses a messages file replaced by a symbolic link: the target is neither read nor truncated', async () => {
    const dir = await dirs.make();
    const target = join(await dirs.make(), 'precious.txt');
    await writeFile(target, 'precious bytes that must survive\n');
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('hello')]));
    await rm(join(dir, 's1.messages.jsonl'));
    await symlink(target, join(dir, 's1.messages.jsonl'));

    const appended = await store.append('s1', [message('reply', 'assistant')], meta('s1', 2)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isErrorCode(appended, 'SESSION_CORRUPT') || isErrorCode(appended, 'STORE_WRITE_FAILED')).toBe(
      true,
    );
    expect(String((appended as Error).message)).toMatch(/symbolic link/);
    const fresh = await createUserSessionStore(dir).load('s1');
    expect(fresh).toMatchObject({ status: 'corrupt' });
    expect(JSON.stringify(fresh)).toContain('symbolic link');
    expect(await readFile(target, 'utf8')).toBe('precious bytes that must survive\n');
  });

  it('refuses a record replaced by a symbolic link: reported corrupt, the target never overwritten', async () => {
    const dir = await dirs.make();
    const target = join(await dirs.make(), 'precious.json');
    await writeFile(target, '{"not":"a session"}\n');
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('hello')]));
    await rm(join(dir, 's1.json'));
    await symlink(target, join(dir, 's1.json'));

    const outcome = await createUserSessionStore(dir).load('s1');
    expect(outcome).toMatchObject({ status: 'corrupt' });
    expect(JSON.stringify(outcome)).toContain('symbolic link');
    const saved = await store.append('s1', [message('reply', 'assistant')], meta('s1', 2)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(saved).toBeInstanceOf(Error);
    expect(await readFile(target, 'utf8')).toBe('{"not":"a session"}\n');
  });
});
