/** Shared setup for session tests: the real SDK against the loopback fake, in a temporary workspace. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession, type InteractiveSessionOptions } from '../../src/session/index.js';
import type { SessionEvents } from '../../src/session/types.js';
import type { FakeAnthropic } from '../fakes/anthropic.js';

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
