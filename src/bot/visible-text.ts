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

/** C0 and C1 controls and DEL; newline and tab are layout and stay. */
const CONTROL = /[\p{Cc}]/gu;

/**
 * Makes only the control characters of `text` visible (C0, DEL and C1, such
 * as ESC, CSI `U+009B` or OSC `U+009D`), leaving every other character as
 * it is: for text a terminal prints, where an escape sequence would recolour,
 * hide, move or overwrite what is on screen, or write the clipboard (OSC 52).
 * A CR LF pair is read as the line break it is.
 *
 * @example
 * showControls('ok\x1b[8m hidden'); // 'ok⟨ESC⟩[8m hidden'
 */
export function showControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, (ch) => (ch === '\n' || ch === '\t' ? ch : marker(ch)));
}

/** Columns a tab may take: up to the next stop, at most 8. */
const TAB_COLUMNS = 8;
/** Blank runs at least this many columns wide are counted instead of drawn. */
const LONG_BLANK = 16;

/** Columns `ch` may take on screen: a tab as many as it can, anything else one. */
const columnsOf = (ch: string) => (ch === '\t' ? TAB_COLUMNS : 1);

/** `⟨300 spaces⟩`, `⟨31 tabs⟩`, `⟨2 tabs, 12 spaces⟩`: what a blank run holds. */
function countBlank(run: string): string {
  const tabs = run.split('\t').length - 1;
  const spaces = run.length - tabs;
  const part = (n: number, one: string) => (n === 0 ? [] : [`${n} ${n === 1 ? one : `${one}s`}`]);
  return `⟨${[...part(tabs, 'tab'), ...part(spaces, 'space')].join(', ')}⟩`;
}

/**
 * A command as a person should read it: hidden characters made visible, long
 * runs of blanks counted (`⟨40 spaces⟩`, `⟨31 tabs⟩`: a tab may take eight
 * columns, so nothing hides past the edge of a code block that scrolls
 * sideways), and lines wider than `width` columns wrapped onto continuation
 * lines that start with `↪ `.
 *
 * @example
 * showCommand('echo hi;' + ' '.repeat(300) + 'cat ../.env'); // 'echo hi;⟨300 spaces⟩cat ../.env'
 */
export function showCommand(command: string, width = 72): string {
  const shown = showHidden(command).replace(/[ \t]+/g, (run) =>
    [...run].reduce((cols, ch) => cols + columnsOf(ch), 0) >= LONG_BLANK ? countBlank(run) : run,
  );
  return shown
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

/** Cuts `line` into pieces of at most `width` columns, a tab counted at its widest. */
function wrapLine(line: string, width: number): string[] {
  const out: string[] = [];
  let piece = '';
  let cols = 0;
  for (const ch of line) {
    const w = columnsOf(ch);
    if (cols + w > width && piece !== '') {
      out.push(out.length === 0 ? piece : `↪ ${piece}`);
      piece = '';
      cols = 0;
    }
    piece += ch;
    cols += w;
  }
  out.push(out.length === 0 ? piece : `↪ ${piece}`);
  return out;
}
