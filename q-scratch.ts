import { renderMarkdown } from './src/bot/format/index.ts';

const mk = (n: number) => {
  let s = '| a | b | c | d |\n|---|---|---|---|';
  while (s.length < n) s += '\n| cell one | cell two | cell three | four |';
  return s;
};
const shapes: Record<string, string> = {
  quotes: '>'.repeat(3000) + ' hi',
  lists: '1. '.repeat(2000) + 'x',
  table: mk(44000),
  brackets: '['.repeat(1000),
  b44: '['.repeat(44000),
  ind: Array.from({ length: 300 }, (_, i) => ' '.repeat(2 * i) + '- x').join('\n'),
};
for (let r = 0; r < 2; r++)
  for (const [k, v] of Object.entries(shapes))
    for (const partial of [false, true]) {
      const t0 = performance.now();
      const out = renderMarkdown(v, 'telegram-html', { partial });
      if (r)
        console.log(
          k,
          partial,
          (performance.now() - t0).toFixed(1),
          'ms',
          out.length,
          JSON.stringify(out.slice(0, 60)),
          JSON.stringify(out.slice(-40)),
        );
    }
