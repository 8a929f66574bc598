/**
 * Every setting the bot reads is documented where operators look: the
 * README's configuration table and `.env.example`. The list is derived from
 * the code (the configuration schema's keys, and every `env.NAME` /
 * `env['NAME']` the sources read), so a setting added anywhere shows up here.
 * `compose.yaml` likewise names no variable that `.env.example` and the
 * README leave out.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../config/schema.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const SETTING = /\b(?:SWITCHBOARD|ANTHROPIC|TELEGRAM|SLACK|DISCORD)_[A-Z0-9_]+\b/;

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The settings the code reads: the schema's keys and every environment lookup by name. */
function settingsInCode(): string[] {
  const names = new Set(Object.keys(envSchema.shape));
  const lookup = new RegExp(`\\benv(?:\\.(${SETTING.source})|\\[['"](${SETTING.source})['"]\\])`, 'g');
  for (const file of ['config', 'src', 'adapters'].flatMap(sources)) {
    for (const m of read(file).matchAll(lookup)) names.add(m[1] ?? m[2] ?? '');
  }
  return [...names].sort();
}

/** The variables named in the first column of the README's configuration table. */
function settingsInReadme(): string[] {
  const readme = read('README.md');
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return [
    ...new Set(
      rows.flatMap((row) =>
        [...(row.split('|')[1] ?? '').matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1] ?? ''),
      ),
    ),
  ].sort();
}

describe('the documented settings', () => {
  it('the README table lists exactly the settings the code reads', () => {
    const code = settingsInCode();
    expect(code).toEqual(
      expect.arrayContaining(['ANTHROPIC_API_KEY', 'SWITCHBOARD_HTTP_PORT', 'DISCORD_SHARDS']),
    );
    expect(settingsInReadme()).toEqual(code);
  });

  it('.env.example has a line for every setting the code reads', () => {
    const example = read('.env.example');
    const missing = settingsInCode().filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example));
    expect(missing).toEqual([]);
  });

  it('compose.yaml needs no variable that .env.example and the README leave out', () => {
    const needed = [...read('compose.yaml').matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1] ?? '');
    expect(needed).toContain('POSTGRES_PASSWORD');
    for (const name of new Set(needed)) {
      expect(read('.env.example'), name).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
      expect(read('README.md'), name).toContain(`\`${name}\``);
    }
  });
});
