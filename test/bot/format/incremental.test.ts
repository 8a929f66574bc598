import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/bot/adapter-contract.js';
import {
  blockGroups,
  RenderCache,
  renderIncremental,
  renderMarkdown,
} from '../../../src/bot/format/index.js';

const reply = [
  'Intro with **bold** and `code`.',
  '',
  '1. First step',
  '2. Second step',
  '',
  '   ```bash',
  '   npm test',
  '',
  '   npm run build',
  '   ```',
  '',
  '3. Third step',
  '',
  '```ts',
  'const a = 1;',
  '',
  'const b = a < 2;',
  '```',
  '',
  '> quoted',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  'Last paragraph & done.',
].join('\n');

describe('incremental rendering', () => {
  it('cuts into block groups that rejoin to the text, never inside a fence or an indented continuation', () => {
    const groups = blockGroups(reply);
    expect(groups.join('')).toBe(reply);
    expect(groups.some((g) => g.includes('   ```bash\n   npm test\n\n   npm run build'))).toBe(true);
    expect(groups.some((g) => g.includes('const a = 1;\n\nconst b'))).toBe(true);
    expect(groups.map((g) => g.split('\n')[0])).toEqual([
      'Intro with **bold** and `code`.',
      '```ts',
      '> quoted',
      '| a | b |',
      'Last paragraph & done.',
    ]);
  });

  it('renders like a whole-document render, for every dialect', () => {
    const dialects: Dialect[] = ['telegram-html', 'slack-mrkdwn', 'discord-markdown', 'markdown', 'plain'];
    for (const d of dialects) {
      const cache = new RenderCache();
      expect(renderIncremental(reply, d, false, cache)).toBe(renderMarkdown(reply, d));
    }
  });

  it('matches a healed full render for every prefix while streaming, reusing finished groups', () => {
    const cache = new RenderCache();
    for (let i = 1; i <= reply.length; i++) {
      const prefix = reply.slice(0, i);
      expect(renderIncremental(prefix, 'telegram-html', true, cache), `prefix ${i}`).toBe(
        renderMarkdown(prefix, 'telegram-html', { partial: true }),
      );
    }
  });
});
