import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/tools/index.js';

describe('createBuiltinTools', () => {
  const tools = createBuiltinTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));

  it('gives the eight tools with their classes', () => {
    expect(tools.map((t) => [t.name, t.toolClass])).toEqual([
      ['Read', 'inspect'],
      ['Write', 'modify'],
      ['Edit', 'modify'],
      ['Glob', 'inspect'],
      ['Grep', 'inspect'],
      ['Bash', 'execute'],
      ['SendFile', 'inspect'],
      ['Schedule', 'modify'],
    ]);
  });

  it('describes each input as a JSON schema object with its required fields', () => {
    const required = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.required]));
    expect(required).toEqual({
      Read: ['file_path'],
      Write: ['file_path', 'content'],
      Edit: ['file_path', 'old_string', 'new_string'],
      Glob: ['pattern'],
      Grep: ['pattern'],
      Bash: ['command'],
      SendFile: ['file_path'],
      Schedule: ['when', 'prompt'],
    });
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema).not.toHaveProperty('$schema');
      expect(t.description.length).toBeGreaterThan(40);
    }
    expect(byName.Bash!.inputSchema.properties).toHaveProperty('timeout');
  });

  it('summarizes each call on one short line', () => {
    expect(byName.Read!.summarize({ file_path: 'README.md' })).toBe('Read: README.md');
    expect(byName.Write!.summarize({ file_path: 'src/a.ts', content: 'x' })).toBe('Write: src/a.ts');
    expect(byName.Edit!.summarize({ file_path: 'src/a.ts', old_string: 'a', new_string: 'b' })).toBe(
      'Edit: src/a.ts',
    );
    expect(byName.Glob!.summarize({ pattern: '**/*.ts' })).toBe('Glob: **/*.ts');
    expect(byName.Grep!.summarize({ pattern: 'TODO', path: 'src' })).toBe('Grep: TODO in src');
    expect(byName.Bash!.summarize({ command: 'npm   test\n' })).toBe('Bash: npm test');
    expect(byName.Read!.summarize({})).toBe('Read: ?');
    const long = byName.Read!.summarize({ file_path: `${'dir/'.repeat(40)}file.ts` });
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
  });

  it('scopes approvals: the exact command for Bash, the normalised path for file tools, * otherwise', () => {
    expect(byName.Bash!.scopeKey({ command: 'ls -la' })).toBe('ls -la');
    expect(byName.Write!.scopeKey({ file_path: './src//a.ts' })).toBe('src/a.ts');
    expect(byName.Edit!.scopeKey({ file_path: 'src/x/../a.ts' })).toBe('src/a.ts');
    expect(byName.Edit!.scopeKey({ file_path: '/abs/a.ts' })).toBe('/abs/a.ts');
    expect(byName.Write!.scopeKey({ file_path: 'src/a.ts' })).not.toBe(
      byName.Write!.scopeKey({ file_path: 'src/b.ts' }),
    );
    expect(byName.Read!.scopeKey({ file_path: 'README.md' })).toBe('README.md');
    expect(byName.Glob!.scopeKey({ pattern: '*' })).toBe('*');
    expect(byName.Grep!.scopeKey({ pattern: 'x', path: 'src/' })).toBe('src');
  });
});
