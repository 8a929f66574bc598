import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flushMicrotasks } from '../../src/clock.js';
import { SUMMARY_HEADER } from '../../src/session/index.js';
import { createMemorySessionStore } from '../../src/store/index.js';
import { lastUserBlocks, nextEvent, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const session = (options: Parameters<typeof fx.session>[0] = {}) => fx.session(options);

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fx.fake.
const lastText = (body: any) => lastUserBlocks(body).at(-1)?.text ?? '';

describe('automatic compaction', () => {
  it('compacts before a turn once usage crosses 0.835, not before', async () => {
    const s = session();
    const rec = recordEvents(s);
    fx.fake.enqueue(
      { text: 'one', usage: { input_tokens: 160_000, output_tokens: 100 } }, // 80%: below
      { text: 'two', usage: { input_tokens: 167_000, output_tokens: 100 } }, // 83.55%: above
      { text: 'The user asked twice; answers one and two.' }, // the summary
      { text: 'three' },
    );
    await (await s.submit('first')).completed;
    await (await s.submit('second')).completed;
    expect(rec.of('compact')).toHaveLength(0);
    expect(s.getContextState().usedPercentage).toBe(83.6);
    await (await s.submit('third')).completed;
    const [event] = rec.of('compact')[0] ?? [];
    expect(event).toMatchObject({ trigger: 'auto', before: { usedTokens: 167_100 } });
    expect(event?.after.usedTokens).toBeLessThan(100);
    expect(lastText(fx.fake.requests[2])).toContain('Summarize the conversation');
    const turn = fx.fake.requests[3];
    expect(turn.messages).toHaveLength(1);
    expect(turn.messages[0].content.map((b: { text: string }) => b.text)).toEqual([
      `${SUMMARY_HEADER}\nThe user asked twice; answers one and two.`,
      'third',
    ]);
    expect(s.getFullHistory().map((m) => m.kind ?? m.role)).toEqual(['summary', 'user', 'assistant']);
  });

  it('setAutoCompactThreshold(false) turns it off; a fraction changes it', async () => {
    const s = session();
    const rec = recordEvents(s);
    s.setAutoCompactThreshold(false);
    fx.fake.enqueue(
      { text: 'big', usage: { input_tokens: 180_000, output_tokens: 0 } },
      { text: 'bigger', usage: { input_tokens: 181_000, output_tokens: 0 } },
    );
    await (await s.submit('a')).completed;
    await (await s.submit('b')).completed;
    expect(rec.of('compact')).toHaveLength(0);
    s.setAutoCompactThreshold(0.5);
    fx.fake.enqueue({ text: 'summary' }, { text: 'after' });
    await (await s.submit('c')).completed;
    expect(rec.of('compact')).toHaveLength(1);
    expect(() => s.setAutoCompactThreshold(1.5)).toThrow(/between 0 and 1/);
  });
});

describe('the 0.95 guard', () => {
  it('does not send a request past 95%: adds a notice with the usage and a /compact hint', async () => {
    const s = session({ autoCompactThreshold: false });
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: 'huge', usage: { input_tokens: 191_000, output_tokens: 0 } });
    await (await s.submit('a')).completed;
    const result = await (await s.submit('b')).completed;
    expect(fx.fake.requests).toHaveLength(1);
    expect(result.state).toBe('complete');
    expect(result.response).toContain('191,000 of 200,000 tokens');
    expect(result.response).toContain('95.5%');
    expect(result.response).toContain('/compact');
    expect(rec.of('notice')[0]?.[0]).toBe(result.response);
    // The notice is the session's, not reply text from the model.
    expect(rec.text()).toBe('huge');
    expect(s.getFullHistory().at(-1)).toMatchObject({ role: 'assistant', kind: 'notice' });
  });

  it('also guards the calls inside the tool loop', async () => {
    const s = session({ autoCompactThreshold: false, permissionMode: 'bypassPermissions' });
    fx.fake.enqueue({
      text: 'Looking.',
      toolUse: [{ name: 'Glob', input: { pattern: '*' } }],
      usage: { input_tokens: 192_000, output_tokens: 10 },
    });
    const result = await (await s.submit('a')).completed;
    expect(fx.fake.requests).toHaveLength(1);
    expect(result.response).toMatch(/^Looking\.\n\nThe conversation uses 192,010 of 200,000 tokens/);
    // The history stays valid: the tool call has its result, and the notice is not sent to the model.
    fx.fake.enqueue({ text: 'ok' });
    await s.compactContext();
    expect(lastText(fx.fake.requests[1])).toContain('Summarize');
    expect(fx.fake.requests[1].messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });
});

describe('manual compaction', () => {
  it('runs the hooks, sends the focus and the Compact Instructions, replaces the history and saves it', async () => {
    await writeFile(
      join(fx.cwd, 'CLAUDE.md'),
      '# Project rules\nUse tabs.\n\n## Compact Instructions\nKeep every error code.\n\n## Other\nnot this\n',
    );
    await writeFile(join(fx.cwd, 'AGENTS.md'), 'Run npm test before you finish.');
    const store = createMemorySessionStore();
    const calls: string[] = [];
    const s = session({
      projectAccess: 'trusted',
      sessionStore: store,
      hooks: {
        PreCompact: async ({ trigger }) => {
          calls.push(`pre:${trigger}:${s.getFullHistory().length}`);
        },
        PostCompact: ({ summary, state }) => {
          calls.push(`post:${summary}:${state.usedTokens}`);
        },
      },
    });
    const rec = recordEvents(s);
    await (await s.submit('hello')).completed;
    // The system prompt goes out as one text block carrying a cache breakpoint.
    expect(fx.fake.requests[0].system[0].text).toContain('Use tabs.');
    expect(fx.fake.requests[0].system[0].text).toContain('Run npm test before you finish.');
    fx.fake.enqueue({ text: 'We said hello.' });
    const event = await s.compactContext('Focus on the API design');
    const prompt = lastText(fx.fake.requests[1]);
    expect(prompt).toContain('Focus of this summary: Focus on the API design');
    expect(prompt).toContain('Keep every error code.');
    expect(prompt).not.toContain('not this');
    expect(calls[0]).toBe('pre:manual:2');
    expect(calls[1]).toMatch(/^post:We said hello\.:\d+$/);
    expect(rec.of('compact')[0]?.[0]).toEqual(event);
    expect(event.trigger).toBe('manual');
    expect(s.getFullHistory()).toHaveLength(1);
    expect(s.getFullHistory()[0]).toMatchObject({ role: 'user', kind: 'summary' });
    await s.close();
    const saved = await store.load(s.getSession().getSessionId());
    expect(saved.status === 'valid' && saved.record.messages.map((m) => m.kind)).toEqual(['summary']);
  });

  it('a restricted session loads no project files', async () => {
    await writeFile(join(fx.cwd, 'CLAUDE.md'), '## Compact Instructions\nSECRET-RULE\n');
    await writeFile(join(fx.cwd, 'AGENTS.md'), 'AGENT-RULE');
    const s = session();
    await (await s.submit('hello')).completed;
    fx.fake.enqueue({ text: 'summary' });
    await s.compactContext();
    expect(JSON.stringify(fx.fake.requests)).not.toMatch(/SECRET-RULE|AGENT-RULE/);
  });

  it('an empty summary, an error or an abort leave the history untouched and report COMPACTION_FAILED', async () => {
    const s = session();
    const rec = recordEvents(s);
    await (await s.submit('hello')).completed;
    const before = s.getFullHistory();
    fx.fake.enqueue({ text: '   ' });
    await expect(s.compactContext()).rejects.toMatchObject({ code: 'COMPACTION_FAILED' });
    fx.fake.enqueue({ error: { status: 500, type: 'api_error', message: 'boom' } });
    await expect(s.compactContext()).rejects.toMatchObject({ code: 'COMPACTION_FAILED' });
    fx.fake.enqueue({ text: ['partial'], stallAfterChunks: 1 });
    const aborted = s.compactContext();
    await fx.fake.waitFor(() => fx.fake.log.at(-1)?.chunksSent === 1);
    s.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'COMPACTION_FAILED', detail: { reason: 'aborted' } });
    expect(s.getFullHistory()).toEqual(before);
    expect(rec.of('error').map(([e]) => (e as { code?: string }).code)).toEqual([
      'COMPACTION_FAILED',
      'COMPACTION_FAILED',
      'COMPACTION_FAILED',
    ]);
    expect(rec.of('compact')).toHaveLength(0);
  });

  it('waits behind a running turn instead of racing it', async () => {
    const s = session();
    let release!: () => void;
    fx.fake.enqueue({ text: 'slow', release: new Promise<void>((r) => (release = r)) }, { text: 'summary' });
    const firstDelta = nextEvent(s, 'text_delta');
    const turn = s.submit('hello');
    await firstDelta;
    const compaction = s.compactContext();
    await flushMicrotasks();
    expect(s.queuedCount()).toBe(1);
    expect(fx.fake.requests).toHaveLength(1);
    release();
    await (await turn).completed;
    await expect(compaction).resolves.toMatchObject({ trigger: 'manual' });
    expect(fx.fake.requests[1].messages.at(-2).content[0].text).toBe('slow');
  });
});
