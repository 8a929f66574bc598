import { describe, expect, it } from 'vitest';
import { globToRegExp, hasMagic, splitLiteralPrefix } from '../../src/tools/glob-pattern.js';

const matches = (glob: string, path: string) => globToRegExp(glob).test(path);

describe('globToRegExp', () => {
  it('* and ? stay within one folder', () => {
    expect(matches('*.ts', 'a.ts')).toBe(true);
    expect(matches('*.ts', 'src/a.ts')).toBe(false);
    expect(matches('a?.ts', 'ab.ts')).toBe(true);
    expect(matches('a?.ts', 'a/.ts')).toBe(false);
    expect(matches('*', '.env')).toBe(true);
  });

  it('** spans zero or more folders', () => {
    expect(matches('**/*.ts', 'a.ts')).toBe(true);
    expect(matches('**/*.ts', 'src/deep/a.ts')).toBe(true);
    expect(matches('src/**/a.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/**/a.ts', 'src/x/y/a.ts')).toBe(true);
    expect(matches('src/**', 'src/x/y/a.ts')).toBe(true);
    expect(matches('src/**/a.ts', 'lib/a.ts')).toBe(false);
    expect(matches('a**b', 'a/b')).toBe(false);
  });

  it('supports classes, braces and escapes, and treats regex characters literally', () => {
    expect(matches('[ab].js', 'b.js')).toBe(true);
    expect(matches('[!ab].js', 'b.js')).toBe(false);
    expect(matches('[!ab].js', 'c.js')).toBe(true);
    expect(matches('*.{js,json}', 'x.json')).toBe(true);
    expect(matches('*.{js,json}', 'x.ts')).toBe(false);
    expect(matches('{src,test}/**/*.ts', 'test/t/a.ts')).toBe(true);
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('a.txt', 'abtxt')).toBe(false);
    expect(matches('\\*.txt', '*.txt')).toBe(true);
    expect(matches('\\*.txt', 'a.txt')).toBe(false);
    expect(matches('{a}.txt', '{a}.txt')).toBe(true);
    expect(matches('[oops.txt', '[oops.txt')).toBe(true);
  });
});

describe('splitLiteralPrefix', () => {
  it('splits off the literal folders', () => {
    expect(splitLiteralPrefix('src/lib/**/*.ts')).toEqual({ prefix: 'src/lib', rest: '**/*.ts' });
    expect(splitLiteralPrefix('**/*.ts')).toEqual({ prefix: '', rest: '**/*.ts' });
    expect(splitLiteralPrefix('src/a.ts')).toEqual({ prefix: 'src', rest: 'a.ts' });
    expect(hasMagic('a.ts')).toBe(false);
    expect(hasMagic('a*.ts')).toBe(true);
  });
});
