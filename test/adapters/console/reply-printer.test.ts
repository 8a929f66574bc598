/** The terminal shows the API's web searches and fetches as tool lines, like a local tool's. */
import { describe, expect, it } from 'vitest';
import { splitStatus } from '../../../adapters/console/reply-printer.js';

describe('the terminal status line', () => {
  it('takes a search, a fetch and their ends as tool lines', () => {
    expect(splitStatus('Looking.\n\n🔎 Searching: switchboard release')).toEqual({
      body: 'Looking.',
      status: ['🔎 Searching: switchboard release'],
    });
    expect(splitStatus('🌐 Reading: news.example.com').status).toEqual(['🌐 Reading: news.example.com']);
    expect(splitStatus('x\n\n✗ 🔎 Searching: q').status).toEqual(['✗ 🔎 Searching: q']);
    expect(splitStatus('⚙ Bash: ls').status).toEqual(['⚙ Bash: ls']);
    expect(splitStatus('Plain text 🔎 inside a line').status).toEqual([]);
  });
});
