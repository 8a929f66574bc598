/** Slack text in and command words: pure functions of the adapter. */
import { describe, expect, it } from 'vitest';
import { splitForSections } from '../../../adapters/slack/buttons.js';
import { parseSlashText } from '../../../adapters/slack/commands.js';
import { decodeSlackText, mentions } from '../../../adapters/slack/inbound.js';
import { parseSlackChatKey, slackChatKey } from '../../../adapters/slack/keys.js';
import { parseTextCommand } from '../../../src/bot/adapter-contract.js';

describe('Slack text', () => {
  it('finds a mention of exactly this user', () => {
    expect(mentions('hi <@UBOT>', 'UBOT')).toBe(true);
    expect(mentions('hi <@UBOT|switchboard>', 'UBOT')).toBe(true);
    expect(mentions('hi <@UBOT2>', 'UBOT')).toBe(false);
    expect(mentions('hi @UBOT', 'UBOT')).toBe(false);
  });

  it('turns Slack markup into plain text for the model', () => {
    expect(
      decodeSlackText('<@UBOT> see <https://x.dev/a|the docs> &amp; <https://y.dev> a &lt;b&gt;', 'UBOT'),
    ).toBe('see the docs (https://x.dev/a) & https://y.dev a <b>');
    expect(decodeSlackText('ask <@UBOT|sb>  now, <@U2>', 'UBOT')).toBe('ask now, <@U2>');
  });

  it('parses /switchboard text and thread command words', () => {
    expect(parseSlashText('  Compact   keep the names ')).toEqual({
      name: 'compact',
      args: 'keep the names',
    });
    expect(parseSlashText('')).toEqual({ name: 'help', args: '' });
    expect(parseTextCommand('!resume parser work')).toEqual({ name: 'resume', args: 'parser work' });
    expect(parseTextCommand('resume parser work')).toBeUndefined();
    expect(parseTextCommand('mode plan')).toEqual({ name: 'mode', args: 'plan' });
    expect(parseTextCommand('new')).toEqual({ name: 'new', args: '' });
    expect(parseTextCommand('newer ideas')).toBeUndefined();
    expect(parseTextCommand('!frobnicate')).toBeUndefined();
  });

  it('builds and parses chat keys', () => {
    expect(slackChatKey('C1', '1700000000.000100')).toBe('slack:C1:1700000000.000100');
    expect(parseSlackChatKey('slack:C1:1700000000.000100')).toEqual({
      channel: 'C1',
      threadTs: '1700000000.000100',
    });
    expect(() => parseSlackChatKey('slack:C1')).toThrow(/not a Slack chat key/);
  });

  it('splits long section text at line boundaries within 3,000 characters', () => {
    const text = Array.from({ length: 100 }, (_, i) => `${i} ${'z'.repeat(70)}`).join('\n');
    const parts = splitForSections(text);
    expect(parts.every((p) => p.length <= 3000)).toBe(true);
    expect(parts.join('\n')).toBe(text);
    expect(splitForSections('w'.repeat(6500)).map((p) => p.length)).toEqual([3000, 3000, 500]);
  });
});
