/**
 * Teams' Markdown subset as a Syntax table for the core's renderer: what
 * "Format your bot messages" says a markdown text message shows.
 */
import { describe, expect, it } from 'vitest';
import { escapeTeams, TEAMS_MARKDOWN } from '../../../adapters/teams/markdown.js';

describe("Teams' Markdown", () => {
  it('escapes what Teams would read as markup or as its HTML subset', () => {
    expect(escapeTeams('a <b>bold</b> *claim* | [x]')).toBe('a \\<b\\>bold\\</b\\> \\*claim\\* \\| \\[x\\]');
    expect(escapeTeams('- not a list\n1. nor this')).toBe('\\- not a list\n1\\. nor this');
    expect(escapeTeams('# not a header')).toBe('\\# not a header');
    // Every `#`, side by side or after a literal backslash, and none escaped twice.
    expect(escapeTeams('## a#b \\#c')).toBe('\\#\\# a\\#b \\\\\\#c');
  });

  it('shows three levels of header, and deeper ones as the third', () => {
    expect(TEAMS_MARKDOWN.heading(1, 'Top')).toBe('# Top');
    expect(TEAMS_MARKDOWN.heading(5, 'Deep')).toBe('### Deep');
  });

  it('draws tables as monospace text, since text messages show no tables', () => {
    expect(TEAMS_MARKDOWN.keepsTables).toBe(false);
    expect(TEAMS_MARKDOWN.preformatted('a | b')).toBe('```\na | b\n```');
  });

  it('keeps code fences longer than any backtick run inside, and links as Markdown links', () => {
    expect(TEAMS_MARKDOWN.code('x = ```', 'py')).toBe('````py\nx = ```\n````');
    expect(TEAMS_MARKDOWN.link('https://example.com/a b', 'the docs')).toBe(
      '[the docs](https://example.com/a%20b)',
    );
    expect(TEAMS_MARKDOWN.link('https://example.com', escapeTeams('https://example.com'))).toBe(
      'https://example.com',
    );
    expect(TEAMS_MARKDOWN.linkAllowed('javascript:alert(1)')).toBe(false);
  });

  it('quotes every line, strikes with tildes', () => {
    expect(TEAMS_MARKDOWN.quote('one\n\ntwo')).toBe('> one\n>\n> two');
    expect(TEAMS_MARKDOWN.strike('gone')).toBe('~~gone~~');
  });
});
