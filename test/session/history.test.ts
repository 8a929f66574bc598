import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { createMessage, toProviderMessages, userMessage } from '../../src/session/history.js';
import {
  CUT_OFF_NOTICE,
  extractCompactInstructions,
  INTERRUPTED_TOOL_RESULT,
} from '../../src/session/index.js';
import { PNG_1X1 } from '../fakes/images.js';

const clock = new VirtualClock(Date.UTC(2026, 0, 1));

describe('history for the provider', () => {
  it('prefixes the author in shared chats and keeps it on the message; images become image blocks', () => {
    const m = userMessage(
      { text: 'hello', author: 'Alice', images: [{ mediaType: 'image/png', data: PNG_1X1 }] },
      clock,
    ).message;
    expect(m.author).toBe('Alice');
    expect(m.content).toEqual([
      { type: 'text', text: '[Alice] hello' },
      { type: 'image', mediaType: 'image/png', data: PNG_1X1 },
    ]);
    expect(m.createdAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('tells the model, in the next user message, that an interrupted reply was cut off', () => {
    const history = [
      userMessage('write a poem', clock).message,
      createMessage('assistant', [{ type: 'text', text: 'Roses are' }], clock, { state: 'interrupted' }),
      userMessage('never mind', clock).message,
    ];
    const out = toProviderMessages(history);
    expect(out).toHaveLength(3);
    expect(out[2]?.content).toEqual([
      { type: 'text', text: CUT_OFF_NOTICE },
      { type: 'text', text: 'never mind' },
    ]);
  });

  it('answers tool calls that never ran as interrupted, results first, and skips notices', () => {
    const history = [
      userMessage('list files', clock).message,
      createMessage(
        'assistant',
        [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
        clock,
        {
          state: 'interrupted',
        },
      ),
      createMessage('assistant', [{ type: 'text', text: 'context is full' }], clock, { kind: 'notice' }),
      userMessage('go on', clock).message,
    ];
    const out = toProviderMessages(history);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(out[2]?.content).toEqual([
      { type: 'tool_result', toolUseId: 't1', content: INTERRUPTED_TOOL_RESULT, isError: true },
      { type: 'text', text: CUT_OFF_NOTICE },
      { type: 'text', text: 'go on' },
    ]);
  });

  it('drops an empty interrupted reply but still sends the cut-off notice', () => {
    const history = [
      userMessage('hi', clock).message,
      createMessage('assistant', [], clock, { state: 'interrupted' }),
      userMessage('again', clock).message,
    ];
    const out = toProviderMessages(history);
    expect(out).toHaveLength(1);
    expect(out[0]?.content.map((b) => (b.type === 'text' ? b.text : b.type))).toEqual([
      'hi',
      CUT_OFF_NOTICE,
      'again',
    ]);
  });
});

describe('Compact Instructions', () => {
  it('extracts the section under the heading, up to the next heading of its level', () => {
    const md = [
      '# Project',
      'intro',
      '## Compact Instructions',
      'Keep the API names.',
      '### Detail',
      'Keep error codes.',
      '```',
      '# not a heading',
      '```',
      '## Other',
      'not included',
    ].join('\n');
    const section = extractCompactInstructions(md);
    expect(section).toContain('Keep the API names.');
    expect(section).toContain('Keep error codes.');
    expect(section).toContain('# not a heading');
    expect(section).not.toContain('not included');
    expect(extractCompactInstructions('# Nothing here')).toBeUndefined();
  });
});
