import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/errors.js';
import { CUT_OFF_NOTICE, INTERRUPTED_TOOL_RESULT, InteractiveSession } from '../../src/session/index.js';
import { fakeProvider, lastUserBlocks, nextEvent, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const session = (options: Parameters<typeof fx.session>[0] = {}) => fx.session(options);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('InteractiveSession turns', () => {
  it('runs a turn when idle: streams deltas, emits complete, resolves after the turn', async () => {
    const s = session();
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: ['Hello', ', ', 'world'], usage: { input_tokens: 1000, output_tokens: 20 } });
    const { completed } = await s.submit('hi');
    expect(s.isRunning()).toBe(false);
    const result = await completed;
    expect(result).toMatchObject({ response: 'Hello, world', state: 'complete' });
    expect(result.usage).toMatchObject({ inputTokens: 1000, outputTokens: 20 });
    expect(rec.text()).toBe('Hello, world');
    expect(rec.of('complete')[0]?.[0]).toEqual(result);
    expect(s.getContextState().usedTokens).toBe(1020);
    expect(rec.of('context_update').at(-1)?.[0].usedTokens).toBe(1020);
    expect(s.getFullHistory().map((m) => [m.role, m.state])).toEqual([
      ['user', undefined],
      ['assistant', 'complete'],
    ]);
  });

  it('queues prompts while busy, resolves submit at once, and runs them in order', async () => {
    const s = session();
    const hold = deferred();
    fx.fake.enqueue({ text: 'first', release: hold.promise });
    const firstDelta = nextEvent(s, 'text_delta');
    const first = s.submit('one');
    await firstDelta;
    expect(s.isRunning()).toBe(true);
    const second = await s.submit('two');
    const third = await s.submit('three');
    expect(s.queuedCount()).toBe(2);
    hold.resolve();
    await expect((await first).completed).resolves.toMatchObject({ response: 'first' });
    await expect(second.completed).resolves.toMatchObject({ response: 'You said: two' });
    await expect(third.completed).resolves.toMatchObject({ response: 'You said: three' });
    expect(fx.fake.requests.map((b) => lastUserBlocks(b).at(-1)?.text)).toEqual(['one', 'two', 'three']);
  });

  it('a full queue rejects the extra prompt with QUEUE_FULL; ignoring it is safe', async () => {
    const s = session({ queueLimit: 1 });
    const hold = deferred();
    fx.fake.enqueue({ text: 'busy', release: hold.promise });
    const firstDelta = nextEvent(s, 'text_delta');
    const first = s.submit('one');
    await firstDelta;
    const queued = await s.submit('two');
    const dropped = await s.submit('three');
    await expect(dropped.completed).rejects.toMatchObject({ code: 'QUEUE_FULL' });
    hold.resolve();
    await (await first).completed;
    await queued.completed;
    expect(fx.fake.requests).toHaveLength(2);
  });

  it('abort mid-text: the stream is closed, partial text kept as interrupted, queue cleared, next request told', async () => {
    const s = session();
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: ['Once ', 'upon ', 'a time'], stallAfterChunks: 2 });
    const twoDeltas = new Promise<void>((resolve) => {
      let n = 0;
      s.on('text_delta', () => {
        if (++n === 2) resolve();
      });
    });
    const running = s.submit('tell a story');
    await twoDeltas;
    const queuedA = await s.submit('queued a'); // nobody awaits this one's rejection
    const queuedB = await s.submit('queued b');
    s.abort();
    const result = await (await running).completed;
    expect(result).toMatchObject({ state: 'interrupted', response: 'Once upon ' });
    expect(rec.of('interrupted')[0]?.[0]).toEqual(result);
    await expect(queuedB.completed).rejects.toMatchObject({ code: 'ABORTED' });
    void queuedA;
    expect(s.queuedCount()).toBe(0);
    await fx.fake.waitFor(() => fx.fake.log[0]?.closedEarly === true);
    const last = s.getFullHistory().at(-1);
    expect(last).toMatchObject({
      role: 'assistant',
      state: 'interrupted',
      content: [{ type: 'text', text: 'Once upon ' }],
    });

    const next = await s.submit('go on');
    await expect(next.completed).resolves.toMatchObject({ state: 'complete' });
    const body = fx.fake.requests.at(-1);
    expect(body.messages.at(-2)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Once upon ' }],
    });
    expect(lastUserBlocks(body).map((b) => b.text)).toEqual([CUT_OFF_NOTICE, 'go on']);
  });

  it('abort mid-tool: the turn ends at once, every call is answered "interrupted", the history stays valid', async () => {
    const s = session({ permissionMode: 'bypassPermissions' });
    const rec = recordEvents(s);
    fx.fake.enqueue({
      text: 'Running two commands.',
      toolUse: [
        { name: 'Bash', input: { command: 'sleep 2' } },
        { name: 'Bash', input: { command: 'echo never' } },
      ],
    });
    const started = nextEvent(s, 'tool_start');
    const running = s.submit('run them');
    await started;
    s.abort();
    const result = await (await running).completed;
    expect(result.state).toBe('interrupted');
    expect(rec.of('tool_end').map(([e]) => e.status)).toEqual(['interrupted']);
    const history = s.getFullHistory();
    expect(history.at(-2)).toMatchObject({ role: 'assistant', state: 'interrupted' });
    const results = history.at(-1)?.content ?? [];
    expect(results).toHaveLength(2);
    expect(results.every((b) => b.type === 'tool_result' && b.content === INTERRUPTED_TOOL_RESULT)).toBe(
      true,
    );

    await (await s.submit('what happened?')).completed;
    const blocks = lastUserBlocks(fx.fake.requests.at(-1));
    expect(blocks.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text', 'text']);
    expect(blocks[2]?.text).toBe(CUT_OFF_NOTICE);
  });

  it('keeps the author of shared-chat messages and sends it to the model', async () => {
    const s = session();
    const { completed } = await s.submit({ text: 'hello all', author: 'Alice' });
    await expect(completed).resolves.toMatchObject({ response: 'You said: [Alice] hello all' });
    expect(s.getFullHistory()[0]).toMatchObject({ author: 'Alice' });
  });

  it('sends images as image blocks; open() awaits ready; history is handed out as a copy', async () => {
    const s = await InteractiveSession.open({ cwd: fx.cwd, provider: fakeProvider(fx.fake), toolEnv: {} });
    fx.track(s);
    await (await s.submit({ text: 'what is this?', images: [{ mediaType: 'image/jpeg', data: 'AAAA' }] }))
      .completed;
    expect(fx.fake.requests[0].messages[0].content).toEqual([
      { type: 'text', text: 'what is this?' },
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' },
        cache_control: { type: 'ephemeral' },
      },
    ]);
    const copy = s.getFullHistory();
    copy.pop();
    copy[0]?.content.pop();
    expect(s.getFullHistory()).toHaveLength(2);
    expect(s.getFullHistory()[0]?.content).toHaveLength(2);
  });

  it('text deltas add up to the response across tool rounds', async () => {
    const s = session({ permissionMode: 'bypassPermissions' });
    const rec = recordEvents(s);
    fx.fake.enqueue(
      { text: 'Checking.', toolUse: [{ name: 'Glob', input: { pattern: '*' } }] },
      { text: ['All ', 'done.'] },
    );
    const result = await (await s.submit('look')).completed;
    expect(result.response).toBe('Checking.\n\nAll done.');
    expect(rec.text()).toBe(result.response);
    expect(rec.of('tool_start')[0]?.[0]).toMatchObject({ name: 'Glob' });
    expect(rec.of('tool_end')[0]?.[0]).toMatchObject({ name: 'Glob', status: 'ok' });
  });

  it('stops a runaway tool loop with a notice', async () => {
    const s = session({ permissionMode: 'bypassPermissions', maxIterations: 3 });
    const rec = recordEvents(s);
    fx.fake.setDefault(() => ({ toolUse: [{ name: 'Glob', input: { pattern: '*' } }] }));
    const result = await (await s.submit('loop')).completed;
    expect(fx.fake.requests).toHaveLength(3);
    expect(result.response).toContain('Stopped after 3 model calls');
    expect(rec.of('notice')).toHaveLength(1);
  });

  it('submit() rejects after close()', async () => {
    const s = session();
    await s.close();
    await expect(s.submit('late')).rejects.toBeInstanceOf(SwitchboardError);
  });
});
