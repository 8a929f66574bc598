/**
 * Every setting the code reads (config/schema.ts) is documented: a row of the
 * README's settings tables names it, and .env.example shows it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../config/schema.js';

const root = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8');

describe('settings documentation', () => {
  const settings = Object.keys(envSchema.shape);

  it('names every setting in a README table row', () => {
    const rows = read('README.md')
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .join('\n');
    expect(settings.filter((name) => !rows.includes(`\`${name}\``))).toEqual([]);
  });

  it('shows every setting in .env.example', () => {
    const example = read('.env.example');
    expect(settings.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example))).toEqual([]);
  });
});
