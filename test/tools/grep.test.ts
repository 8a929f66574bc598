import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrepTool, GREP_MAX_RESULTS } from '../../src/tools/grep.js';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

describe('Grep', () => {
  let box: Sandbox;
  const grep = tool('Grep');
  const run = (input: Record<string, unknown>) => grep.run(input, makeContext(box.workspace));
  const lines = async (input: Record<string, unknown>) => (await run(input)).content.split('\n');

  beforeAll(async () => {
    box = await makeSandbox();
    await box.write({
      'a.ts': 'const needle = 1;\nconst other = 2;\nNEEDLE again\n',
      'src/b.ts': 'no match here\nneedle in b\n',
      'src/c.md': 'needle in markdown\n',
      'node_modules/pkg/index.js': 'needle in a dependency\n',
      '.git/HEAD': 'needle in git\n',
      'bin.dat': new Uint8Array([...Buffer.from('needle'), 0, 1, 2]),
      'big.txt': Array.from({ length: 300 }, (_, i) => `needle ${i}`).join('\n'),
    });
    await symlink(box.outside, join(box.workspace, 'out-dir'));
    await symlink(join(box.outside, 'secret.txt'), join(box.workspace, 'out-file.txt'));
  });
  afterAll(() => box.cleanup());

  it('prints path:line:text for matching lines, in path order', async () => {
    const found = await lines({ pattern: 'needle', glob: '*.{ts,md}' });
    expect(found).toEqual([
      'a.ts:1:const needle = 1;',
      'src/b.ts:2:needle in b',
      'src/c.md:1:needle in markdown',
    ]);
  });

  it('supports regular expressions and case_insensitive', async () => {
    expect(await lines({ pattern: '^NEEDLE', path: 'a.ts' })).toEqual(['a.ts:3:NEEDLE again']);
    expect(await lines({ pattern: '^needle', path: 'a.ts', case_insensitive: true })).toEqual([
      'a.ts:3:NEEDLE again',
    ]);
  });

  it('filters by glob on names anywhere, or on paths when the glob has a folder', async () => {
    expect(await lines({ pattern: 'needle', glob: '*.md' })).toEqual(['src/c.md:1:needle in markdown']);
    expect(await lines({ pattern: 'needle', glob: 'src/*.ts' })).toEqual(['src/b.ts:2:needle in b']);
  });

  it('has files_with_matches and count modes', async () => {
    expect(await lines({ pattern: 'needle', output_mode: 'files_with_matches', glob: '*.ts' })).toEqual([
      'a.ts',
      'src/b.ts',
    ]);
    expect(
      await lines({ pattern: 'needle', output_mode: 'count', case_insensitive: true, glob: '*.ts' }),
    ).toEqual(['a.ts:2', 'src/b.ts:1']);
  });

  it('skips node_modules, .git, binary files and links out of the workspace', async () => {
    const out = (await run({ pattern: 'needle|secret', output_mode: 'files_with_matches' })).content;
    expect(out.split('\n').sort()).toEqual(['a.ts', 'big.txt', 'src/b.ts', 'src/c.md']);
  });

  it('caps results and says so', async () => {
    const found = await lines({ pattern: 'needle \\d+' });
    expect(found).toHaveLength(GREP_MAX_RESULTS + 1);
    expect(found.at(-1)).toBe('[output truncated: more matches not shown; narrow the pattern, path or glob]');
    const small = await createGrepTool({ maxOutputChars: 100 }).run(
      { pattern: 'needle \\d+' },
      makeContext(box.workspace),
    );
    expect(small.content.length).toBeLessThan(200);
    expect(small.content).toContain('[output truncated');
  });

  it('does not claim truncation when the results fit exactly', async () => {
    const exact = await lines({ pattern: 'needle (1\\d\\d|[0-9]?[0-9])$', path: 'big.txt' });
    expect(exact).toHaveLength(GREP_MAX_RESULTS);
    expect(exact.at(-1)).toBe('big.txt:200:needle 199');
  });

  it('stops a pattern that backtracks without end, instead of freezing the bot', async () => {
    await box.write({ 'evil.txt': `${'a'.repeat(40)}b\n` });
    const slowGuarded = createGrepTool({ maxOutputChars: 30_000, timeLimitMs: 100 });
    const result = await slowGuarded.run({ pattern: '(a+)+$', path: 'evil.txt' }, makeContext(box.workspace));
    expect(result).toEqual({
      content:
        'Grep was stopped after 100 ms: the pattern probably backtracks without end (nested quantifiers such as (a+)+). Simplify the pattern or narrow the path.',
      isError: true,
    });
  });

  it('reports no matches and refuses paths outside the workspace', async () => {
    expect(await run({ pattern: 'haystack' })).toEqual({ content: 'No matches for /haystack/.' });
    for (const path of ['..', box.outside, 'out-dir', 'out-file.txt']) {
      const result = await run({ pattern: 'secret', path });
      expect(result.isError).toBe(true);
      expect(result.content).toContain('tools are confined to the workspace');
    }
  });

  it('answers bad input with an error naming the field', async () => {
    expect((await run({ pattern: '(' })).content).toMatch(/^Invalid input for Grep: pattern: /);
    expect((await run({ pattern: 'x', glob: '[z-a]' })).content).toMatch(/^Invalid input for Grep: glob: /);
    expect((await run({ pattern: 'x', output_mode: 'lines' })).content).toMatch(/output_mode: /);
    expect((await run({ pattern: 'x', path: 'missing' })).content).toBe('missing does not exist.');
  });
});
