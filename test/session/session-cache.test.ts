/**
 * Prompt caching through the real SDK against the fake's cache accounting:
 * which requests read the cache, which write it anew, and that the prefix the
 * session sends stays byte-identical across calls, turns, a restart and a
 * resume (the marks themselves aside).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession, type InteractiveSessionOptions } from '../../src/session/index.js';
import { createUserSessionStore } from '../../src/store/index.js';
import { createBuiltinTools } from '../../src/tools/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { API_KEY, removeDir, tempDir } from './helpers.js';

const MODEL = 'claude-sonnet-5-5';
const MINUTE = 60_000;

let clock: VirtualClock;
let fake: FakeAnthropic;
let cwd: string;
const sessions: InteractiveSession[] = [];

beforeAll(async () => {
  clock = new VirtualClock(Date.parse('2026-12-01T09:00:00Z'));
  fake = await startFakeAnthropic({ now: () => clock.now() });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  fake.reset();
  cwd = await tempDir('sb-cache-');
  await writeFile(join(cwd, 'notes.txt'), 'the build uses tabs\n');
});
afterEach(async () => {
  for (const s of sessions.splice(0)) {
    s.abort();
    await s.close();
  }
  await removeDir(cwd);
});

async function open(options: Partial<InteractiveSessionOptions> = {}): Promise<InteractiveSession> {
  const s = await InteractiveSession.open({
    cwd,
    provider: new AnthropicProvider({ apiKey: API_KEY, baseURL: fake.url, maxRetries: 0 }),
    model: MODEL,
    clock,
    toolEnv: {},
    ...options,
  });
  sessions.push(s);
  return s;
}

async function ask(s: InteractiveSession, text: string): Promise<void> {
  await (await s.submit(text)).completed;
}

/** What the fake reported for request `i`. */
function usage(i: number) {
  const u = fake.log[i]?.usage as
    | {
        input_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
      }
    | undefined;
  if (!u) throw new Error(`request ${i} has no usage`);
  return u;
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
function withoutMarks(value: any): any {
  if (Array.isArray(value)) return value.map(withoutMarks);
  if (value && typeof value === 'object') {
    const { cache_control: _mark, ...rest } = value;
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, withoutMarks(v)]));
  }
  return value;
}

/** The bytes of request `i` that request `i + 1` must start with: tools, system, and its messages. */
function prefixOf(i: number, messages = fake.requests[i].messages.length): string {
  const body = fake.requests[i];
  return JSON.stringify(
    withoutMarks({ tools: body.tools, system: body.system, messages: body.messages.slice(0, messages) }),
  );
}

/** Asserts request `later` starts with every byte request `earlier` sent. */
function expectPrefixKept(earlier: number, later: number): void {
  expect(prefixOf(later, fake.requests[earlier].messages.length)).toBe(prefixOf(earlier));
}

describe('prompt caching', () => {
  it('the second call of a tool loop reads what the first wrote; the next turn reads the whole loop', async () => {
    const s = await open();
    fake.enqueue({ toolUse: [{ name: 'Read', input: { path: 'notes.txt' } }] }, { text: 'It uses tabs.' });
    await ask(s, 'What does the build use?');
    expect(fake.requests).toHaveLength(2);
    expect(usage(0).cache_read_input_tokens).toBe(0);
    expect(usage(0).cache_creation_input_tokens).toBeGreaterThan(1024);
    // Everything the first call sent is read back; only the tool round is new.
    expect(usage(1).cache_read_input_tokens).toBe(usage(0).cache_creation_input_tokens);
    expect(usage(1).cache_creation_input_tokens).toBeGreaterThan(0);
    expectPrefixKept(0, 1);

    await clock.advance(30_000);
    await ask(s, 'And the tests?');
    expect(usage(2).cache_read_input_tokens).toBe(
      usage(1).cache_read_input_tokens + usage(1).cache_creation_input_tokens,
    );
    expectPrefixKept(1, 2);
    // Breakpoints: the last tool, the system prompt, the previous request's end, the newest message.
    const marks = JSON.stringify(fake.requests[2]).match(/"cache_control"/g) ?? [];
    expect(marks).toHaveLength(4);
  });

  it('a new system prompt or another tool order on resume is said at the end: system and tools stay as sent, the cache is read', async () => {
    const store = createUserSessionStore(join(cwd, '.sessions'));
    const first = await open({ sessionStore: store, systemPrompt: 'You are terse.' });
    await ask(first, 'hello');
    const id = first.getSession().getSessionId();
    await first.close();

    const newSystem = await open({
      sessionStore: store,
      resumeSessionId: id,
      systemPrompt: 'You are chatty.',
    });
    await ask(newSystem, 'hello again');
    // Prefix checks page: system and tools are built once per conversation; the change is a message at the end.
    expect(fake.requests[1].system).toEqual(fake.requests[0].system);
    expectPrefixKept(0, 1);
    const change = fake.requests[1].messages.at(-2);
    expect(change.role).toBe('system');
    expect(JSON.stringify(change.content)).toContain('You are chatty.');
    expect(usage(1).cache_read_input_tokens).toBe(usage(0).cache_creation_input_tokens);
    await newSystem.close();

    // The same tools in another order change nothing that is sent.
    const reordered = await open({
      sessionStore: store,
      resumeSessionId: id,
      systemPrompt: 'You are chatty.',
      tools: createBuiltinTools().reverse(),
    });
    await ask(reordered, 'one more');
    expect(fake.requests[2].tools).toEqual(fake.requests[0].tools);
    expectPrefixKept(1, 2);
    expect(usage(2).cache_read_input_tokens).toBeGreaterThan(usage(1).cache_read_input_tokens);
  });

  it('a chat idle past the 5-minute lifetime writes anew; one within it reads', async () => {
    const s = await open({ cache: '5m' });
    await ask(s, 'first');
    await clock.advance(4 * MINUTE);
    await ask(s, 'second');
    expect(usage(1).cache_read_input_tokens).toBeGreaterThan(0);
    await clock.advance(5 * MINUTE + 1000);
    await ask(s, 'third');
    expect(usage(2).cache_read_input_tokens).toBe(0);
    expect(usage(2).cache_creation.ephemeral_5m_input_tokens).toBeGreaterThan(0);
  });

  it('auto: a chat whose messages come 10 minutes apart gets the 1-hour lifetime and reads across the gap', async () => {
    const s = await open();
    for (const text of ['one', 'two', 'three']) {
      await ask(s, text);
      await clock.advance(10 * MINUTE);
    }
    // The first message has no gap to go by: 5 minutes, gone by the next message.
    expect(usage(0).cache_creation.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    // The second came 10 minutes later: written again, now for an hour...
    expect(usage(1).cache_read_input_tokens).toBe(0);
    expect(usage(1).cache_creation.ephemeral_1h_input_tokens).toBeGreaterThan(0);
    expect(usage(1).cache_creation.ephemeral_5m_input_tokens).toBe(0);
    // ...so the third, 10 minutes after that, reads it.
    expect(usage(2).cache_read_input_tokens).toBe(
      usage(1).cache_read_input_tokens + usage(1).cache_creation_input_tokens,
    );
    expect(JSON.stringify(fake.requests[2])).toContain('"ttl":"1h"');
  });

  it('the prefix is byte-stable across a restart and a resume, so the resumed chat reads the cache', async () => {
    const store = createUserSessionStore(join(cwd, '.sessions'));
    const s = await open({ sessionStore: store });
    fake.enqueue({ toolUse: [{ name: 'Read', input: { path: 'notes.txt' } }] }, { text: 'Tabs.' });
    await ask(s, 'What does the build use?');
    const id = s.getSession().getSessionId();
    await s.close();

    // A new process: a fresh store object over the same files, the session resumed by id.
    const again = await open({
      sessionStore: createUserSessionStore(join(cwd, '.sessions')),
      resumeSessionId: id,
    });
    await clock.advance(60_000);
    await ask(again, 'Thanks. And the tests?');
    expectPrefixKept(1, 2);
    expect(usage(2).cache_read_input_tokens).toBe(
      usage(1).cache_read_input_tokens + usage(1).cache_creation_input_tokens,
    );
  });

  it('off sends no marks and reads nothing', async () => {
    const s = await open({ cache: 'off' });
    await ask(s, 'first');
    await ask(s, 'second');
    expect(JSON.stringify(fake.requests)).not.toContain('cache_control');
    expect(usage(1).cache_read_input_tokens).toBe(0);
  });
});
