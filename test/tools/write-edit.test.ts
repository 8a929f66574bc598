import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(() => box.cleanup());

const text = (path: string) => readFile(join(box.workspace, path), 'utf8');

describe('Write', () => {
  const write = tool('Write');
  const run = (input: Record<string, unknown>) => write.run(input, makeContext(box.workspace));

  it('creates a file and its missing parent folders', async () => {
    const result = await run({ file_path: 'deep/er/new.txt', content: 'héllo\n' });
    expect(result).toEqual({ content: 'Created deep/er/new.txt (7 bytes).' });
    expect(await text('deep/er/new.txt')).toBe('héllo\n');
  });

  it('overwrites an existing file', async () => {
    await box.write({ 'a.txt': 'old' });
    expect((await run({ file_path: './a.txt', content: 'new' })).content).toBe('Overwrote a.txt (3 bytes).');
    expect(await text('a.txt')).toBe('new');
  });

  it('refuses to write outside, through ../, absolute paths and symlinked folders', async () => {
    await symlink(box.outside, join(box.workspace, 'out'));
    await symlink(join(box.outside, 'planted.txt'), join(box.workspace, 'dangling.txt'));
    for (const file_path of [
      '../outside/x.txt',
      join(box.outside, 'x.txt'),
      'out/x.txt',
      'out/sub/x.txt',
      'dangling.txt',
    ]) {
      const result = await run({ file_path, content: 'pwned' });
      expect(result.isError).toBe(true);
      expect(result.content).toContain(`"${file_path}"`);
      expect(result.content).toContain('tools are confined to the workspace');
    }
    await expect(readFile(join(box.outside, 'x.txt'))).rejects.toThrow();
    await expect(readFile(join(box.outside, 'planted.txt'))).rejects.toThrow();
    await expect(readFile(join(box.outside, 'sub/x.txt'))).rejects.toThrow();
  });

  it('refuses a folder as the target and validates input', async () => {
    await box.write({ 'dir/a.txt': 'a' });
    expect(await run({ file_path: 'dir', content: 'x' })).toEqual({
      content: 'dir is a directory; give a file path.',
      isError: true,
    });
    expect((await run({ file_path: 'a.txt' })).content).toMatch(/^Invalid input for Write: content: /);
  });
});

describe('Edit', () => {
  const edit = tool('Edit');
  const run = (input: Record<string, unknown>) => edit.run(input, makeContext(box.workspace));

  it('replaces exactly one occurrence', async () => {
    await box.write({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const result = await run({ file_path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' });
    expect(result).toEqual({ content: 'Edited a.ts: replaced 1 occurrence.' });
    expect(await text('a.ts')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('keeps $ patterns in new_string literal', async () => {
    await box.write({ 'a.ts': 'price = X;' });
    await run({ file_path: 'a.ts', old_string: 'X', new_string: "$& $' $1 $$" });
    expect(await text('a.ts')).toBe("price = $& $' $1 $$;");
  });

  it('refuses an ambiguous match unless replace_all', async () => {
    await box.write({ 'a.ts': 'x x x' });
    const ambiguous = await run({ file_path: 'a.ts', old_string: 'x', new_string: 'y' });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.content).toContain('occurs 3 times in a.ts');
    expect(await text('a.ts')).toBe('x x x');
    const all = await run({ file_path: 'a.ts', old_string: 'x', new_string: 'y', replace_all: true });
    expect(all.content).toBe('Edited a.ts: replaced 3 occurrences.');
    expect(await text('a.ts')).toBe('y y y');
  });

  it('explains a missing match, a missing file and a no-op', async () => {
    await box.write({ 'a.ts': 'const a = 1;' });
    const notFound = await run({ file_path: 'a.ts', old_string: 'const  a', new_string: 'let a' });
    expect(notFound.isError).toBe(true);
    expect(notFound.content).toContain('old_string was not found in a.ts');
    const noFile = await run({ file_path: 'b.ts', old_string: 'a', new_string: 'b' });
    expect(noFile).toEqual({ content: 'b.ts does not exist. Use Write to create it.', isError: true });
    const same = await run({ file_path: 'a.ts', old_string: 'a', new_string: 'a' });
    expect(same.isError).toBe(true);
    expect(same.content).toContain('the same');
  });

  it('refuses files outside the workspace and bad input', async () => {
    await symlink(join(box.outside, 'secret.txt'), join(box.workspace, 'link.txt'));
    const escaped = await run({ file_path: 'link.txt', old_string: 'outside', new_string: 'inside' });
    expect(escaped.isError).toBe(true);
    expect(escaped.content).toContain('tools are confined to the workspace');
    expect(await readFile(join(box.outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    const empty = await run({ file_path: 'a.ts', old_string: '', new_string: 'x' });
    expect(empty.content).toMatch(/^Invalid input for Edit: old_string: /);
    const wrongType = await run({ file_path: 'a.ts', old_string: 'a', new_string: 'b', replace_all: 'yes' });
    expect(wrongType.content).toMatch(/replace_all: /);
  });
});
