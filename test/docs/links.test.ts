/**
 * Every link in the project's Markdown resolves: a relative link names a file
 * or folder that exists, and a `#fragment` names a heading of the file it
 * points into (GitHub's anchor rules: lower case, punctuation dropped, spaces
 * to hyphens). External links are not fetched (no network in tests).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'workspace', 'tmp']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchor(m[1] ?? '')));
}

/** `[text](target)` links outside code, with their line. */
function linksOf(file: string): { target: string; line: number }[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: { target: string; line: number }[] = [];
  let fenced = false;
  lines.forEach((text, i) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    if (fenced) return;
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) out.push({ target: m[1] ?? '', line: i + 1 });
  });
  return out;
}

describe('documentation links', () => {
  const files = markdownFiles(ROOT);

  it('finds the project documentation', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'adapters/telegram/README.md']),
    );
  });

  it('every relative link and anchor resolves', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { target, line } of linksOf(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not fetched
        const [path = '', fragment] = target.split('#');
        const destination = path ? resolve(dirname(file), decodeURI(path)) : file;
        const where = `${relative(ROOT, file)}:${line} → ${target}`;
        if (!existsSync(destination)) {
          broken.push(`${where} (no such file)`);
        } else if (fragment && destination.endsWith('.md') && !anchorsOf(destination).has(fragment)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('every file named in .env.example exists', () => {
    const env = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const named = [...env.matchAll(/\b((?:docs|deploy|adapters|scripts)\/[\w./-]+\.\w+)/g)].map(
      (m) => m[1] ?? '',
    );
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
