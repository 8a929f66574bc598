/**
 * Responses other projects recorded from the real Messages API, replayed
 * through the library: every content block of a recorded reply — server
 * tool calls and results, MCP blocks, code execution results, citations,
 * `tool_use.caller`, thinking with its signature, `fallback`, `compaction`,
 * advisor results — must come back block for block in the next request
 * (Extended thinking page and Server tools page: send the whole `content`
 * array back, in order, unchanged). What a reply's content *is* comes from
 * the SDK's own stream accumulator, not from this project's code.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession, type InteractiveSessionOptions } from '../../src/session/index.js';
import {
  type RecordedMessage,
  readRecording,
  recordedModel,
  startReplay,
} from '../fakes/anthropic-replay.js';
import { useCleanups } from '../helpers/cleanups.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'anthropic-recorded');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.chunks.txt'));

/** The content of each recorded message, as the SDK's beta stream accumulates it. */
async function accumulated(messages: readonly RecordedMessage[]): Promise<unknown[][]> {
  const server = await startReplay(messages);
  try {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const contents: unknown[][] = [];
    for (const message of messages) {
      const stream = client.beta.messages.stream({
        model: recordedModel(message),
        max_tokens: 10,
        messages: [],
      });
      contents.push(JSON.parse(JSON.stringify((await stream.finalMessage()).content)));
    }
    return contents;
  } finally {
    await server.close();
  }
}

/** What a recorded reply's content must come back as: every block, less empty text (the API refuses that). */
function expectedBack(content: unknown[]): unknown[] {
  return content.filter(
    (b) => !((b as { type: string }).type === 'text' && (b as { text: string }).text === ''),
  );
}

const cleanups = useCleanups();

/** A session on the recorded model whose requests the replay server answers with `messages`. */
async function replaySession(
  messages: readonly RecordedMessage[],
  options: Partial<InteractiveSessionOptions> = {},
) {
  const server = await startReplay(messages);
  cleanups.push(() => server.close());
  const session = await InteractiveSession.open({
    cwd: await cleanups.tempRoot('replay'),
    provider: new AnthropicProvider({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
    model: recordedModel(messages[0] as RecordedMessage),
    toolEnv: {},
    ...options,
  });
  cleanups.push(() => session.close());
  return { server, session };
}

describe('responses recorded from the real API, replayed through the library', () => {
  it.each(FILES)('%s comes back block for block', async (file) => {
    const messages = readRecording(join(DIR, file));
    const contents = await accumulated(messages);
    const { server, session } = await replaySession(messages, { cache: 'off', permissionMode: 'plan' });
    await (await session.submit('go')).completed;
    await (await session.submit('and then?')).completed;

    const last = server.requests.at(-1);
    const sentBack = last.messages
      .filter((m: { role: string }) => m.role === 'assistant')
      .flatMap((m: { content: unknown[] }) => m.content)
      // The replies to the tool results and to the last prompt are not recordings.
      .filter((b: { type: string; text?: string }) => !(b.type === 'text' && b.text === 'ok'));
    const refused = contents.filter((_, i) =>
      (messages[i] as RecordedMessage).some(
        (e) => e.type === 'message_delta' && (e.delta as { stop_reason?: string }).stop_reason === 'refusal',
      ),
    );
    const kept = contents.filter((c) => !refused.includes(c));
    expect(sentBack).toEqual(kept.flatMap(expectedBack));
  });
});

describe('citations in the chat', () => {
  it('marks cited text with [n] and lists the cited pages as links under the reply', async () => {
    const messages = readRecording(join(DIR, 'anthropic-web-search-tool.1.chunks.txt'));
    const { session } = await replaySession(messages);
    let shown = '';
    session.on('text_delta', (t) => {
      shown += t;
    });
    const result = await (await session.submit('tech news?')).completed;
    const urls = [...new Set(JSON.stringify(messages).match(/"url":"(https:[^"]+)"/g) ?? [])];
    expect(urls.length).toBeGreaterThan(0);
    expect(shown).toMatch(/ \[1\]/);
    const footer = shown.slice(shown.indexOf('Sources:'));
    expect(footer).toMatch(/^Sources:\n\[1\] \[[^\]]+\]\(https:\/\/[^)]+\)/);
    // Every page listed was one the model cited; the chat and the response agree.
    for (const link of footer.match(/\((https:[^)]+)\)/g) ?? [])
      expect(JSON.stringify(messages)).toContain(link.slice(1, -1));
    expect(result.response.endsWith(footer)).toBe(true);
  });
});
