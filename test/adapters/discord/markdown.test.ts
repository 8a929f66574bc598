/** Discord's dialect: its Markdown, headings to ###, tables in code blocks. */
import { describe, expect, it } from 'vitest';
import { discordMarkdown } from '../../../adapters/discord/markdown.js';
import { renderMarkdown } from '../../../src/bot/format/index.js';
import { SAMPLE_MARKDOWN } from '../../helpers/dialects.js';

describe('Discord Markdown', () => {
  it('escapes literals and draws tables in code blocks', () => {
    const out = renderMarkdown(`${SAMPLE_MARKDOWN}\n\nsnake_case and 2*3`, discordMarkdown);
    expect(out).toContain('# Title');
    expect(out).toContain('**bold**');
    expect(out).toContain('```ts\nif (a < b && c) {}\n```');
    expect(out).toContain('```\nname | n');
    expect(out).toContain('snake\\_case and 2\\*3');
    expect(renderMarkdown('#### deep', discordMarkdown)).toBe('### deep');
    expect(renderMarkdown('see https://x.dev/a_b now', discordMarkdown)).toBe('see <https://x.dev/a_b> now');
  });

  it('closes a partial reply instead of showing stray markers', () => {
    expect(renderMarkdown('text **', discordMarkdown, { partial: true })).toBe('text');
  });
});
