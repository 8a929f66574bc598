import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession } from '../../src/session/index.js';
import { API_KEY, fakeProvider, nextEvent, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const session = (options: Parameters<typeof fx.session>[0] = {}) => fx.session(options);

describe('provider failures in a session', () => {
  it('a mid-stream error ends the turn with a clear error; the partial reply is kept; the session goes on', async () => {
    const s = session();
    const rec = recordEvents(s);
    fx.fake.enqueue({
      text: ['Half an ', 'answer'],
      midStreamError: { type: 'api_error', message: 'Internal server error' },
    });
    const { completed } = await s.submit('question');
    const err = await completed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect((err as Error).message).toContain('middle of the reply');
    expect(rec.of('error')[0]?.[0]).toBe(err);
    expect(rec.of('complete')).toHaveLength(0);
    expect(s.getFullHistory().at(-1)).toMatchObject({ role: 'assistant', state: 'interrupted' });
    await expect((await s.submit('again')).completed).resolves.toMatchObject({ state: 'complete' });
  });

  it('a failed call names its request-id in the error and in the log line of the provider (Errors page)', async () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (l: string) => lines.push(l) } });
    const provider = new AnthropicProvider({ apiKey: API_KEY, baseURL: fx.fake.url, maxRetries: 0, logger });
    const s = fx.track(new InteractiveSession({ cwd: fx.cwd, provider, toolEnv: {} }));
    fx.fake.enqueue({ error: { status: 500, type: 'api_error', message: 'Internal server error' } });
    const err = await (await s.submit('hi')).completed.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const id =
      /^The Anthropic API answered 500 \(api_error\): Internal server error \(request (req_fake\d+)\)$/.exec(
        err?.message ?? '',
      )?.[1];
    expect(id).toBeDefined();
    const line = lines.find((l) => l.includes('model request failed'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ requestId: id, code: 'PROVIDER_ERROR' });
    // A mid-stream error carries the id of the response it broke.
    fx.fake.enqueue({ text: ['Half'], midStreamError: { type: 'overloaded_error', message: 'Overloaded' } });
    const mid = await (await s.submit('again')).completed.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(mid?.message).toMatch(/\(request req_fake\d+\)$/);
    expect(mid?.message).not.toContain(id);
  });

  it('429 and 529 are retried by the SDK, then the turn succeeds', async () => {
    const s = new InteractiveSession({ cwd: fx.cwd, provider: fakeProvider(fx.fake, 2), toolEnv: {} });
    fx.track(s);
    fx.fake.enqueue(
      { error: { status: 429, type: 'rate_limit_error', message: 'Too many requests', retryAfter: 0.01 } },
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: 0.01 } },
      { text: 'made it' },
    );
    await expect((await s.submit('hi')).completed).resolves.toMatchObject({ response: 'made it' });
    expect(fx.fake.requests).toHaveLength(3);
  });

  it('a rejected key ends the turn with PROVIDER_AUTH, never showing the key', async () => {
    const s = session();
    fx.fake.enqueue({
      error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${API_KEY}` },
    });
    const { completed } = await s.submit('hi');
    await expect(completed).rejects.toMatchObject({ code: 'PROVIDER_AUTH' });
    await expect(completed).rejects.not.toThrow(API_KEY);
  });

  it('a stalled stream is aborted after streamIdleTimeoutMs (virtual clock) with PROVIDER_STALLED', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const s = session({ clock });
    fx.fake.enqueue({ text: ['Thinking', ' more'], stallAfterChunks: 1 });
    const delta = nextEvent(s, 'text_delta');
    const turn = s.submit('hi');
    await delta;
    await clock.advance(119_999);
    expect(s.isRunning()).toBe(true);
    await clock.advance(1);
    const { completed } = await turn;
    const err = await completed.catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PROVIDER_STALLED' });
    expect((err as Error).message).toContain('120 s');
    await fx.fake.waitFor(() => fx.fake.log[0]?.closedEarly === true);
    expect(s.getFullHistory().at(-1)).toMatchObject({
      state: 'interrupted',
      content: [{ type: 'text', text: 'Thinking' }],
    });
    // Still usable.
    await expect((await s.submit('again')).completed).resolves.toMatchObject({ state: 'complete' });
  });
});
