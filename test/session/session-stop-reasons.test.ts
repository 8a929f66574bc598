import { describe, expect, it } from 'vitest';
import { CONTINUE_NOTICE } from '../../src/session/history.js';
import { lastUserBlocks, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const SONNET = 'claude-sonnet-5-5';

describe('stop reasons', () => {
  it('max_tokens: the reply is continued where it stopped, then the user is told plainly it was cut', async () => {
    const s = fx.session({ model: SONNET });
    const rec = recordEvents(s);
    fx.fake.enqueue(
      { text: 'Part one, ', stopReason: 'max_tokens' },
      { text: 'part two, ', stopReason: 'max_tokens' },
      { text: 'part three', stopReason: 'max_tokens' },
    );
    const result = await (await s.submit('write a lot')).completed;
    // Bounded: two continuations, each asked for without an assistant prefill.
    expect(fx.fake.requests).toHaveLength(3);
    expect(lastUserBlocks(fx.fake.requests[1]).at(-1)?.text).toBe(CONTINUE_NOTICE);
    expect(fx.fake.requests[1].messages.at(-1).role).toBe('user');
    expect(rec.text()).toBe('Part one, part two, part three');
    expect(result.response).toMatch(
      /^Part one, part two, part three\n\nThe reply was cut off at the output limit/,
    );
    expect(rec.of('notice')[0]?.[0]).toMatch(/Say "continue"/);
  });

  it('a tool call cut at the output limit is asked again with a larger limit, not repeated', async () => {
    const s = fx.session({ model: SONNET, permissionMode: 'bypassPermissions' });
    const rec = recordEvents(s);
    fx.fake.enqueue(
      {
        toolUse: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x'.repeat(200) } }],
        cutToolInput: true,
      },
      { toolUse: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x'.repeat(200) } }] },
      { text: 'Written.' },
    );
    const result = await (await s.submit('write the file')).completed;
    expect(result.response).toBe('Written.');
    expect(fx.fake.requests[1].max_tokens).toBeGreaterThan(fx.fake.requests[0].max_tokens);
    // The cut call never ran and never went back: one Write, and the retry saw the same history.
    expect(rec.of('tool_start')).toHaveLength(1);
    expect(fx.fake.requests[1].messages).toEqual(fx.fake.requests[0].messages);
  });

  it('pause_turn: the paused content is sent back and the turn goes on', async () => {
    const s = fx.session({ model: SONNET });
    fx.fake.enqueue({ text: 'Working on it…', stopReason: 'pause_turn' }, { text: ' done.' });
    const result = await (await s.submit('long job')).completed;
    expect(result.state).toBe('complete');
    expect(fx.fake.requests).toHaveLength(2);
    expect(fx.fake.requests[1].messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(result.response).toContain('done.');
  });

  it('refusal: the user is told, and the refused exchange is not sent again', async () => {
    const s = fx.session({ model: SONNET });
    const rec = recordEvents(s);
    fx.fake.enqueue(
      {
        text: 'I can',
        stopReason: 'refusal',
        refusal: { category: 'cyber', explanation: 'a request about malware' },
      },
      { text: 'Sure, here is a poem.' },
    );
    const refused = await (await s.submit('something refused')).completed;
    expect(refused.response).toMatch(/declined to answer this \(a request about malware\)/);
    expect(rec.of('notice')).toHaveLength(1);
    await (await s.submit('write a poem')).completed;
    const texts = fx.fake.requests[1].messages.flatMap((m: { content: Array<{ text?: string }> }) =>
      m.content.map((b) => b.text),
    );
    expect(texts).toEqual(['write a poem']);
    // Kept in the history, marked as withheld.
    expect(s.getFullHistory().filter((m) => m.withheld === 'refusal')).toHaveLength(2);
  });

  it('model_context_window_exceeded: the conversation is compacted and the reply goes on once', async () => {
    const s = fx.session({ model: SONNET, autoCompactThreshold: false });
    const rec = recordEvents(s);
    fx.fake.enqueue(
      { text: 'The first half', stopReason: 'model_context_window_exceeded' },
      { text: 'Summary: the user asked for a long answer; the first half was given.' },
      { text: 'and the second half.' },
    );
    const result = await (await s.submit('a long answer please')).completed;
    expect(rec.of('compact')).toHaveLength(1);
    expect(fx.fake.requests).toHaveLength(3);
    expect(result.response).toContain('and the second half.');
    expect(rec.of('notice')[0]?.[0]).toMatch(/compacted and the reply goes on/);
  });

  it('compaction keeps the old history unless the summary ended normally', async () => {
    const s = fx.session({ model: SONNET });
    fx.fake.enqueue({ text: 'answer' });
    await (await s.submit('question')).completed;
    const before = s.getFullHistory();
    fx.fake.enqueue({ text: 'The user asked a que', stopReason: 'max_tokens' });
    await expect(s.compactContext()).rejects.toMatchObject({
      code: 'COMPACTION_FAILED',
      detail: { reason: 'incomplete-summary' },
    });
    expect(s.getFullHistory()).toEqual(before);
  });
});
