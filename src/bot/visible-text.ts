/**
 * Text shown to a person who must judge it (an approval prompt): characters
 * that hide, reorder or overwrite what is on screen are made visible, so what
 * the person reads is what will run. Bidi overrides (the "Trojan Source"
 * trick), zero-width characters, ANSI escapes, carriage returns, Unicode tag
 * characters and odd spaces each become a marker such as `⟨RLO⟩` or
 * `⟨U+E0041⟩`. A literal `⟨`, `⟩` or `↪` in the text is shown as a marker
 * too, so a marker can never be faked by the text itself.
 */

/** Short names for the characters people are most likely to meet. */
const NAMES: Record<number, string> = {
  0: 'NUL',
  7: 'BEL',
  8: 'BS',
  11: 'VT',
  12: 'FF',
  13: 'CR',
  27: 'ESC',
  127: 'DEL',
  160: 'NBSP',
  173: 'SHY',
  1564: 'ALM',
  8203: 'ZWSP',
  8204: 'ZWNJ',
  8205: 'ZWJ',
  8206: 'LRM',
  8207: 'RLM',
  8232: 'LS',
  8233: 'PS',
  8234: 'LRE',
  8235: 'RLE',
  8236: 'PDF',
  8237: 'LRO',
  8238: 'RLO',
  8288: 'WJ',
  8294: 'LRI',
  8295: 'RLI',
  8296: 'FSI',
  8297: 'PDI',
  65279: 'BOM',
};

/**
 * Controls, format characters (bidi, zero-width, tags), line and paragraph
 * separators, private-use, unassigned and lone surrogate code points, blank
 * letters that render as nothing, every space but the plain one, and our own
 * marker characters. Newlines and tabs stay: they are layout, and shown as such.
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Zs}\u115f\u1160\u3164\uffa0\u2800\u27e8\u27e9\u21aa]/gu;
const KEPT = new Set(['\n', '\t', ' ']);
const PICTOGRAPH = /\p{Extended_Pictographic}\uFE0F?$/u;

/** The marker for one hidden character. */
function marker(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const name = NAMES[code] ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `⟨${name}⟩`;
}

/**
 * Makes every hidden or misleading character of `text` visible.
 *
 * @example
 * showHidden('ls \u202Etxt.exe'); // 'ls ⟨RLO⟩txt.exe'
 */
export function showHidden(text: string): string {
  return text.replace(HIDDEN, (ch, offset: number, whole: string) => {
    if (KEPT.has(ch)) return ch;
    // A joiner inside an emoji sequence (👩‍💻) is how emoji are drawn, not a trick.
    if (ch === '\u200d' && PICTOGRAPH.test(whole.slice(Math.max(0, offset - 3), offset))) return ch;
    return marker(ch);
  });
}

/** Runs of spaces at least this long are counted instead of drawn. */
const LONG_BLANK = 16;

/**
 * A command as a person should read it: hidden characters made visible, long
 * runs of spaces counted (`⟨40 spaces⟩`, so nothing hides past the edge of a
 * code block that scrolls sideways), and lines longer than `width` wrapped
 * onto continuation lines that start with `↪ `.
 *
 * @example
 * showCommand('echo hi;' + ' '.repeat(300) + 'cat ../.env'); // 'echo hi;⟨300 spaces⟩cat ../.env'
 */
export function showCommand(command: string, width = 72): string {
  const shown = showHidden(command).replace(
    new RegExp(` {${LONG_BLANK},}`, 'g'),
    (run) => `⟨${run.length} spaces⟩`,
  );
  return shown
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string[] {
  const chars = [...line];
  if (chars.length <= width) return [line];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += width) {
    out.push(`${i === 0 ? '' : '↪ '}${chars.slice(i, i + width).join('')}`);
  }
  return out;
}
