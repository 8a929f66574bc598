/**
 * Replies shaped to make a Markdown renderer slow or overflow its stack
 * (issue 16's reproductions): deep quotes, deep lists, a wide table, a run
 * of unmatched brackets. Shared by the format tests, the outbox test and the
 * rendering benchmark so all three measure the same text.
 */

/** One 44 KB GFM table: a header, its rule, then rows. */
function table(bytes: number): string {
  let md = '| name | kind | size | note |\n|---|:---:|---:|---|';
  for (let i = 0; md.length < bytes; i++) md += `\n| file-${i}.ts | module | ${i * 7} B | a \`note\` here |`;
  return `${md}\n| last-row | end | 0 B | tabled |`;
}

/** The hostile shapes by name; each but the brackets ends in a word ending in `ed`. */
export function hostileShapes(): Record<string, string> {
  return {
    quotes3000: `${'>'.repeat(3000)} quoted`,
    lists2000: `${'1. '.repeat(2000)}listed`,
    table44k: table(44_000),
    brackets1000: '['.repeat(1000),
  };
}
