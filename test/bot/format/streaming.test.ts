import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/bot/adapter-contract.js';
import { renderMarkdown } from '../../../src/bot/format/index.js';
import { discordMarkdown, slackMrkdwn, telegramHtml } from '../../helpers/dialects.js';

/** The tags Telegram accepts; every one must be closed, in order. */
const TAG = /<(\/?)(b|i|s|u|code|pre|a|blockquote)(?:\s[^>]*)?>/g;

function tagsBalanced(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(TAG)) {
    const [, closing, name] = m;
    if (!closing) stack.push(name!);
    else if (stack.pop() !== name) return false;
  }
  // No stray '<' or '&' that is not an entity or a known tag.
  const stripped = html.replace(TAG, '');
  if (/</.test(stripped) || />/.test(stripped)) return false;
  if (/&(?!amp;|lt;|gt;|quot;)/.test(stripped)) return false;
  return stack.length === 0;
}

const replies = [
  'Here is the **plan**:\n\n1. Read `src/index.ts`\n2. Run the _tests_ with ~~yarn~~ npm\n\n```ts\nconst x = a < b && c;\nconsole.log(`x=` + x);\n```\n\nSee [the docs](https://example.com/a?b=1&c=2) & more.',
  '> quoted **bold** text\n\n- item `code` one\n- item two **with [link](http://x.y)**\n\n| a | b |\n|---|---|\n| <x> | & |\n\nDone.',
  'Edge: `` a ` b `` then **bold _nested_ bold** and ***both*** then ~~strike **in** it~~.\n\n~~~\nfenced <tilde>\n~~~\n',
];

describe('streaming-safe rendering', () => {
  it('every prefix of a reply renders to well-formed Telegram HTML', () => {
    for (const reply of replies) {
      for (let i = 1; i <= reply.length; i++) {
        const prefix = reply.slice(0, i);
        const html = renderMarkdown(prefix, telegramHtml, { partial: true });
        if (!tagsBalanced(html)) throw new Error(`unbalanced at ${i}: ${html}`);
      }
    }
  });

  it('every prefix renders with balanced code fences in the Markdown dialects', () => {
    const dialects: Dialect[] = [slackMrkdwn, discordMarkdown];
    for (const reply of replies) {
      for (let i = 1; i <= reply.length; i++) {
        for (const d of dialects) {
          const out = renderMarkdown(reply.slice(0, i), d, { partial: true });
          const fences = out.split('\n').filter((l) => /^(`{3,}|~{3,})/.test(l)).length;
          expect(fences % 2, `${d} at ${i}: ${out}`).toBe(0);
        }
      }
    }
  });

  it('the checker itself rejects broken markup', () => {
    expect(tagsBalanced('<b>x</b>')).toBe(true);
    expect(tagsBalanced('<b>x')).toBe(false);
    expect(tagsBalanced('<b><i>x</b></i>')).toBe(false);
    expect(tagsBalanced('a < b')).toBe(false);
    expect(tagsBalanced('a & b')).toBe(false);
  });
});
