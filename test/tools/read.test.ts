import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadTool } from '../../src/tools/read.js';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

describe('Read', () => {
  let box: Sandbox;
  const read = tool('Read');
  const run = (input: Record<string, unknown>) => read.run(input, makeContext(box.workspace));

  beforeAll(async () => {
    box = await makeSandbox();
    const many = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join('\n');
    await box.write({
      'a.txt': 'alpha\nbeta\r\ngamma\n',
      'many.txt': `${many}\n`,
      'long.txt': 'x'.repeat(5000),
      'empty.txt': '',
      'image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x0a]),
      'src/b.ts': 'export const b = 1;\n',
    });
    await symlink(join(box.outside, 'secret.txt'), join(box.workspace, 'leak.txt'));
  });
  afterAll(() => box.cleanup());

  it('numbers lines from 1, tab-separated', async () => {
    const result = await run({ file_path: 'a.txt' });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe('     1\talpha\n     2\tbeta\n     3\tgamma');
  });

  it('honours offset and limit and says how to read on', async () => {
    const result = await run({ file_path: 'many.txt', offset: 10, limit: 3 });
    expect(result.content.split('\n')).toEqual([
      '    10\tline 10',
      '    11\tline 11',
      '    12\tline 12',
      '[showing lines 10-12 of 3000; use offset 13 to read on]',
    ]);
  });

  it('shows 2000 lines by default', async () => {
    const lines = (await run({ file_path: 'many.txt' })).content.split('\n');
    expect(lines[1999]).toBe('  2000\tline 2000');
    expect(lines[2000]).toBe('[showing lines 1-2000 of 3000; use offset 2001 to read on]');
  });

  it('reports an offset past the end', async () => {
    expect((await run({ file_path: 'a.txt', offset: 9 })).content).toContain('offset 9 is past the end');
  });

  it('cuts very long lines and caps total output', async () => {
    expect((await run({ file_path: 'long.txt' })).content).toContain('[line cut at 2000 characters]');
    const small = await createReadTool({ maxOutputChars: 200 }).run(
      { file_path: 'many.txt' },
      makeContext(box.workspace),
    );
    expect(small.content.length).toBeLessThan(300);
    expect(small.content).toMatch(/\[showing lines 1-\d+ of 3000; use offset \d+ to read on]$/);
  });

  it('refuses binary files with a clear message', async () => {
    const result = await run({ file_path: 'image.png' });
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      'image.png looks like a binary file (it contains NUL bytes); Read shows text files only.',
    );
  });

  it('reports empty files, folders and missing files', async () => {
    expect((await run({ file_path: 'empty.txt' })).content).toBe('empty.txt is empty.');
    const dir = await run({ file_path: 'src' });
    expect(dir).toEqual({ content: 'src is a directory; use Glob to list files.', isError: true });
    const missing = await run({ file_path: 'nope.txt' });
    expect(missing).toEqual({ content: 'nope.txt does not exist.', isError: true });
  });

  it('accepts absolute paths inside the workspace', async () => {
    expect((await run({ file_path: join(box.workspace, 'src/b.ts') })).content).toBe(
      '     1\texport const b = 1;',
    );
  });

  it('refuses paths outside the workspace as a tool error, not a throw', async () => {
    for (const file_path of ['../outside/secret.txt', join(box.outside, 'secret.txt'), 'leak.txt']) {
      const result = await run({ file_path });
      expect(result.isError).toBe(true);
      expect(result.content).toContain('tools are confined to the workspace');
      expect(result.content).not.toContain('outside secret');
    }
  });

  it('answers bad input with an error naming the field', async () => {
    const missing = await run({});
    expect(missing.isError).toBe(true);
    expect(missing.content).toMatch(/^Invalid input for Read: file_path: /);
    expect((await run({ file_path: 'a.txt', offset: 0 })).content).toMatch(/offset: /);
    expect((await run({ file_path: 'a.txt', limit: 'ten' })).content).toMatch(/limit: /);
    expect((await run({ file_path: 'a.txt', bogus: 1 })).content).toMatch(/bogus/);
  });
});
