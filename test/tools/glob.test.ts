import { symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOB_MAX_RESULTS } from '../../src/tools/glob.js';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

describe('Glob', () => {
  let box: Sandbox;
  const glob = tool('Glob');
  const run = (input: Record<string, unknown>) => glob.run(input, makeContext(box.workspace));
  const lines = async (input: Record<string, unknown>) => (await run(input)).content.split('\n');

  beforeAll(async () => {
    box = await makeSandbox();
    await box.write({
      'old.ts': '',
      'new.ts': '',
      'mid.ts': '',
      'src/a.ts': '',
      'src/lib/b.ts': '',
      'src/lib/c.json': '',
      '.hidden.ts': '',
      'node_modules/pkg/index.ts': '',
      '.git/config': '',
    });
    await box.write(Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`many/f${i}.txt`, ''])));
    // Fixed times so the newest-first order is known; files written together can share an mtime.
    const at = (path: string, seconds: number) => utimes(join(box.workspace, path), seconds, seconds);
    await at('old.ts', 1_000);
    await at('mid.ts', 2_000);
    await at('new.ts', 3_000);
    await at('.hidden.ts', 500);
    await symlink(box.outside, join(box.workspace, 'out-dir'));
    await symlink(join(box.outside, 'secret.txt'), join(box.workspace, 'out-file.ts'));
    await symlink(join(box.workspace, 'src'), join(box.workspace, 'src-alias'));
    await symlink(join(box.workspace, 'src/a.ts'), join(box.workspace, 'alias.ts'));
  });
  afterAll(() => box.cleanup());

  it('matches at the top level, newest first', async () => {
    const found = await lines({ pattern: '*.ts' });
    const dated = ['new.ts', 'mid.ts', 'old.ts', '.hidden.ts'];
    expect(found.filter((p) => dated.includes(p))).toEqual(dated);
    expect(found).toContain('.hidden.ts');
    expect(found).toContain('alias.ts');
    expect(found).not.toContain('out-file.ts');
  });

  it('** searches folders, never through links out of the workspace or into linked folders', async () => {
    const found = await lines({ pattern: '**/{secret.txt,*.ts,*.json}' });
    expect([...found].sort()).toEqual([
      '.hidden.ts',
      'alias.ts',
      'mid.ts',
      'new.ts',
      'old.ts',
      'src/a.ts',
      'src/lib/b.ts',
      'src/lib/c.json',
    ]);
    expect(await lines({ pattern: '{out-dir,src-alias}/**' })).toEqual([
      'No files match {out-dir,src-alias}/**.',
    ]);
    expect(await lines({ pattern: '**/{out-file.ts,secret.txt}' })).toEqual([
      'No files match **/{out-file.ts,secret.txt}.',
    ]);
  });

  it('skips node_modules and .git unless the pattern starts inside them', async () => {
    const all = await lines({ pattern: '**/*.ts' });
    expect(all.some((p) => p.includes('node_modules'))).toBe(false);
    expect(await lines({ pattern: '**/config' })).toEqual(['No files match **/config.']);
    expect(await lines({ pattern: 'node_modules/pkg/*.ts' })).toEqual(['node_modules/pkg/index.ts']);
  });

  it('searches under path, giving workspace-relative results', async () => {
    const found = await lines({ pattern: '**/*.{ts,json}', path: 'src' });
    expect([...found].sort()).toEqual(['src/a.ts', 'src/lib/b.ts', 'src/lib/c.json']);
    expect(await lines({ pattern: 'lib/*.json', path: './src' })).toEqual(['src/lib/c.json']);
    expect(await lines({ pattern: join(box.workspace, 'src/lib/*.json') })).toEqual(['src/lib/c.json']);
  });

  it(`lists at most ${GLOB_MAX_RESULTS} results and says how many were left out`, async () => {
    const found = await lines({ pattern: 'many/*.txt' });
    expect(found).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(found.at(-1)).toMatch(/^\[5 more matches not shown/);
  });

  it('reports no matches plainly', async () => {
    expect(await run({ pattern: '*.rs' })).toEqual({ content: 'No files match *.rs.' });
    expect(await run({ pattern: 'nope/*.rs' })).toEqual({ content: 'No files match nope/*.rs.' });
  });

  it('refuses to search outside the workspace', async () => {
    for (const input of [
      { pattern: '../outside/*' },
      { pattern: '*', path: '..' },
      { pattern: '*', path: box.outside },
      { pattern: '*', path: 'out-dir' },
      { pattern: `${box.outside}/*` },
    ]) {
      const result = await run(input);
      expect(result.isError).toBe(true);
      expect(result.content).toContain('tools are confined to the workspace');
    }
  });

  it('answers bad input with an error naming the field', async () => {
    expect((await run({})).content).toMatch(/^Invalid input for Glob: pattern: /);
    expect((await run({ pattern: '[z-a]' })).content).toMatch(
      /^Invalid input for Glob: pattern: not a valid glob/,
    );
    expect((await run({ pattern: '*', path: 3 })).content).toMatch(/path: /);
  });
});
