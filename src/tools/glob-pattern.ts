/**
 * A small glob matcher, written here so the tools depend on nothing beyond
 * the runtime: `*`, `?`, `[abc]` / `[!abc]`, `{a,b}` and `**` for any number
 * of folders. `*` also matches names that start with a dot.
 */

const MAGIC = /[*?[{\\]/;
const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

function findClassEnd(glob: string, start: number): number {
  // A `]` right after `[` or `[!` is a literal member, as in POSIX.
  let i = start + 1;
  if (glob[i] === '!' || glob[i] === '^') i++;
  if (glob[i] === ']') i++;
  for (; i < glob.length; i++) if (glob[i] === ']') return i;
  return -1;
}

function findBraceEnd(glob: string, start: number): number {
  let depth = 0;
  for (let i = start; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      current += c + (body[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '{') depth++;
    if (c === '}') depth--;
    if (c === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function toSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      let j = i;
      while (glob[j] === '*') j++;
      const starts = i === 0 || glob[i - 1] === '/';
      const ends = j === glob.length || glob[j] === '/';
      if (j - i >= 2 && starts && ends) {
        // `**` as a whole segment: zero or more folders.
        if (j === glob.length) out += '.*';
        else {
          out += '(?:.*/)?';
          j++;
        }
      } else out += '[^/]*';
      i = j - 1;
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = findClassEnd(glob, i);
      if (end === -1) out += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        const negate = body.startsWith('!') || body.startsWith('^');
        if (negate) body = body.slice(1);
        out += `[${negate ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\^/g, '\\^')}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = findBraceEnd(glob, i);
      const parts = end === -1 ? [] : splitTopLevel(glob.slice(i + 1, end));
      if (parts.length < 2) out += '\\{';
      else {
        out += `(?:${parts.map(toSource).join('|')})`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      i++;
      out += escapeChar(glob[i]!);
    } else out += escapeChar(c);
  }
  return out;
}

function escapeChar(c: string): string {
  return REGEX_SPECIAL.test(c) ? `\\${c}` : c;
}

/**
 * Compiles a glob into an anchored regular expression over `/`-separated
 * relative paths.
 *
 * @throws SyntaxError for a glob that makes no valid expression (`[z-a]`).
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${toSource(glob)}$`);
}

/** {@link globToRegExp}, or an error message naming the input field. */
export function compileGlob(tool: string, field: string, glob: string): RegExp | string {
  try {
    return globToRegExp(glob);
  } catch (err) {
    return `Invalid input for ${tool}: ${field}: not a valid glob (${(err as Error).message}).`;
  }
}

/** True when `glob` has any wildcard at all. */
export function hasMagic(glob: string): boolean {
  return MAGIC.test(glob);
}

/**
 * Splits a glob into the literal folder it starts in and the rest, so a walk
 * can start at `src/lib` for `src/lib/**\/*.ts` instead of the whole tree.
 */
export function splitLiteralPrefix(glob: string): { prefix: string; rest: string } {
  const segments = glob.split('/');
  const literal: string[] = [];
  while (segments.length > 1 && !hasMagic(segments[0]!)) literal.push(segments.shift()!);
  return { prefix: literal.join('/'), rest: segments.join('/') };
}
