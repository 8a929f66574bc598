/**
 * A platform is one folder: nothing in `src/` or `config/` names one in code.
 * The ids come from the platform list itself, so a new platform is checked
 * the moment its line is added. Comments may name platforms (as examples);
 * identifiers and strings may not. `console.log` is the global, not the
 * terminal platform.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../adapters/platforms.js';

const root = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Each identifier and string in `file` that names a platform, with its line (comments are not in the tree). */
function namings(file: string, ids: readonly string[]): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const words = new RegExp(ids.join('|'), 'i');
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const text =
      ts.isIdentifier(node) || ts.isPrivateIdentifier(node)
        ? node.text
        : ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)
          ? node.text
          : undefined;
    // `console.log` and friends are the global, not the terminal platform.
    const globalConsole =
      ts.isIdentifier(node) && node.text === 'console' && ts.isPropertyAccessExpression(node.parent);
    if (text !== undefined && words.test(text) && !globalConsole) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${relative(root, file)}:${line + 1}: ${text.slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the core names no platform', () => {
  it('in src/ or config/ code', () => {
    const ids = PLATFORMS.map((platform) => platform.id);
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'config'))];
    expect(files.flatMap((file) => namings(file, ids))).toEqual([]);
  });
});
