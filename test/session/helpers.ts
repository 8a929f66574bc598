/** Shared setup for session tests: the real SDK against the loopback fake, in a temporary workspace. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession, type InteractiveSessionOptions } from '../../src/session/index.js';
import type { SessionEvents } from '../../src/session/types.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';

export const API_KEY = 'sk-ant-session-test-key-42';

/** A temporary directory removed by the returned cleanup. */
export async function tempDir(prefix = 'sb-session-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export function fakeProvider(fake: FakeAnthropic, maxRetries = 0): AnthropicProvider {
  return new AnthropicProvider({ apiKey: API_KEY, baseURL: fake.url, maxRetries, model: 'claude-haiku-4-5' });
}

export function newSession(
  fake: FakeAnthropic,
  cwd: string,
  options: Partial<InteractiveSessionOptions> = {},
): InteractiveSession {
  return new InteractiveSession({ cwd, provider: fakeProvider(fake), toolEnv: {}, ...options });
}

/** What {@link useSessionFixture} gives a test file. */
export interface SessionFixture {
  /** The file's fake Messages API, reset before each test. */
  readonly fake: FakeAnthropic;
  /** A fresh workspace for each test, removed after it. */
  readonly cwd: string;
  /** A session on the fake in this test's workspace, aborted and closed after the test. */
  session(options?: Partial<InteractiveSessionOptions>): InteractiveSession;
  /** Closes a session the test built itself after the test, like {@link SessionFixture.session}'s. */
  track(session: InteractiveSession): InteractiveSession;
}

/**
 * The session tests' common fixture: one fake Messages API per file, a fresh
 * workspace per test, every session the test opened closed after it.
 */
export function useSessionFixture(): SessionFixture {
  let fake: FakeAnthropic | undefined;
  let cwd: string | undefined;
  const sessions: InteractiveSession[] = [];
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(async () => {
    fake?.reset();
    cwd = await tempDir();
  });
  afterEach(async () => {
    for (const s of sessions.splice(0)) {
      s.abort();
      await s.close();
    }
    if (cwd) await removeDir(cwd);
  });
  return {
    get fake() {
      if (!fake) throw new Error('the fake Messages API is not started yet');
      return fake;
    },
    get cwd() {
      if (!cwd) throw new Error('the workspace exists only inside a test');
      return cwd;
    },
    session(options = {}) {
      return this.track(newSession(this.fake, this.cwd, options));
    },
    track(session) {
      sessions.push(session);
      return session;
    },
  };
}

/** Records every event of a session, in order. */
export function recordEvents(session: InteractiveSession, options: { answerPermissions?: boolean } = {}) {
  const events: Array<
    { [K in keyof SessionEvents]: { type: K; args: SessionEvents[K] } }[keyof SessionEvents]
  > = [];
  const names: Array<keyof SessionEvents> = [
    'text_delta',
    'tool_start',
    'tool_end',
    'complete',
    'interrupted',
    'context_update',
    'permission_request',
    'compact',
    'error',
    'save_error',
    'notice',
    'progress_note',
  ];
  for (const name of names) {
    // Listening to permission_request means someone may answer: only when asked to.
    if (name === 'permission_request' && options.answerPermissions === false) continue;
    // biome-ignore lint/suspicious/noExplicitAny: generic recorder over every event.
    session.on(name, (...args: any[]) => events.push({ type: name, args } as never));
  }
  return {
    events,
    of<K extends keyof SessionEvents>(type: K): SessionEvents[K][] {
      return events.filter((e) => e.type === type).map((e) => e.args as SessionEvents[K]);
    },
    text(): string {
      return events
        .filter((e) => e.type === 'text_delta')
        .map((e) => e.args[0] as string)
        .join('');
    },
  };
}

/** Resolves on the next `event` of `session`. */
export function nextEvent<K extends keyof SessionEvents>(
  session: InteractiveSession,
  event: K,
): Promise<SessionEvents[K]> {
  return new Promise((resolve) => session.once(event, (...args) => resolve(args)));
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
export function lastUserBlocks(body: any): Array<{ type: string; text?: string }> {
  const last = body.messages[body.messages.length - 1];
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
}
