/**
 * Native streams (chat.startStream / appendStream / stopStream) and the
 * chat.update fallback when the server has none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { slackMarkdown, slackMrkdwn } from '../../../adapters/slack/markdown.js';
import { RateLimitError, type SwitchboardError } from '../../../src/errors.js';
import {
  type FakeSlack,
  type FakeSlackOptions,
  startFakeSlack,
  visibleText,
} from '../../fakes/slack/index.js';
import { type EventLog, startAdapter, stopAdapter } from './helpers.js';

let fake: FakeSlack;
let adapter: SlackAdapter | undefined;
let log: EventLog;

async function setup(options: FakeSlackOptions = {}) {
  fake = await startFakeSlack({ limits: { appendIntervalMs: 0, updateIntervalMs: 0 }, ...options });
  ({ adapter, log } = await startAdapter(fake));
  return adapter as SlackAdapter;
}

afterEach(async () => {
  await stopAdapter(fake, adapter);
  adapter = undefined;
  await fake.close();
});

/** A mention in C1 so the adapter knows whom a stream there is for. */
async function mentionThread(): Promise<string> {
  const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> go' });
  await log.next();
  return `slack:C1:${ts}`;
}

describe('Slack native streams', () => {
  it('streams appended suffixes and finishes with the exact text', async () => {
    const a = await setup();
    const chat = await mentionThread();
    const handle = await a.startStream(chat, {});
    expect(fake.callsOf('chat.startStream')).toHaveLength(0); // Slack needs text to open a stream
    await a.updateStream(handle, { text: 'Hello', format: slackMarkdown });
    await a.updateStream(handle, { text: 'Hello', format: slackMarkdown });
    await a.updateStream(handle, { text: 'Hello **wor', format: slackMarkdown });
    const sent = await a.finishStream(handle, {
      text: 'Hello **world**',
      format: slackMarkdown,
      buttons: [],
    });
    const start = fake.callsOf('chat.startStream')[0];
    expect(start?.args).toMatchObject({
      channel: 'C1',
      thread_ts: chat.split(':')[2],
      markdown_text: 'Hello',
      recipient_user_id: 'U1',
      recipient_team_id: 'T0FAKE',
    });
    expect(fake.callsOf('chat.appendStream').map((c) => c.args.markdown_text)).toEqual([' **wor']);
    expect(fake.callsOf('chat.stopStream')[0]?.args.markdown_text).toBe('ld**');
    const msg = fake.state.get('C1', sent.messageId)!;
    expect(msg.streamState).toBe('completed');
    expect(visibleText(msg)).toBe('Hello **world**');
    expect(fake.callsOf('chat.update')).toHaveLength(0);
  });

  it('a 429 on appendStream reaches the core as a workspace-wide RateLimitError and the next update sends the whole gap', async () => {
    const a = await setup({ limits: { appendIntervalMs: 60_000, updateIntervalMs: 0 } });
    const chat = await mentionThread();
    const handle = await a.startStream(chat, {});
    await a.updateStream(handle, { text: 'one', format: slackMarkdown });
    // startStream counts as the first write: an append at once is too fast.
    const err = await a
      .updateStream(handle, { text: 'one two', format: slackMarkdown })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).code).toBe('RATE_LIMITED');
    // Slack limits a method per workspace (chat.postMessage alone per channel): every chat waits.
    expect((err as RateLimitError).scope).toBe('global');
    fake.limits.appendIntervalMs = 0;
    await a.updateStream(handle, { text: 'one two three', format: slackMarkdown });
    expect(fake.callsOf('chat.appendStream').at(-1)?.args.markdown_text).toBe(' two three');
    const sent = await a.finishStream(handle, { text: 'one two three', format: slackMarkdown });
    expect(visibleText(fake.state.get('C1', sent.messageId)!)).toBe('one two three');
  });

  it('when earlier text changes, the stream is stopped and the message edited to the final text', async () => {
    const a = await setup();
    const chat = await mentionThread();
    const handle = await a.startStream(chat, {});
    await a.updateStream(handle, { text: 'Working\n\n_running Bash_', format: slackMarkdown });
    await a.updateStream(handle, { text: 'Working on it', format: slackMarkdown });
    const sent = await a.finishStream(handle, { text: 'Working on it. Done.', format: slackMarkdown });
    expect(fake.callsOf('chat.stopStream')).toHaveLength(1);
    expect(visibleText(fake.state.get('C1', sent.messageId)!)).toBe('Working on it. Done.');
  });

  it('without chat streams (unknown_method) the first update answers STREAM_UNAVAILABLE with nothing posted, and chats switch to mrkdwn edits', async () => {
    const a = await setup({ streaming: 'unknown_method' });
    const chat = await mentionThread();
    expect(a.capabilities(chat)).toMatchObject({ nativeStream: true, dialect: slackMarkdown });
    const handle = await a.startStream(chat, {});
    const stop = [[{ label: 'Stop', payload: 'x:t1', style: 'danger' as const }]];
    const first = await a
      .updateStream(handle, { text: 'Hel', format: slackMarkdown, buttons: stop })
      .catch((e: unknown) => e);
    // Nothing is visible yet: the core posts the text and paces its chat.update edits itself.
    expect((first as SwitchboardError).code).toBe('STREAM_UNAVAILABLE');
    expect(fake.callsOf('chat.postMessage')).toHaveLength(0);
    expect(fake.callsOf('chat.update')).toHaveLength(0);
    expect(a.capabilities(chat)).toMatchObject({
      nativeStream: false,
      dialect: slackMrkdwn,
      minEditIntervalMs: 3000,
    });
    const err = await a.startStream(chat, {}).catch((e: unknown) => e);
    expect((err as SwitchboardError).code).toBe('STREAM_UNAVAILABLE');
  });

  it('an HTTP 404 for chat.startStream counts as no streams too', async () => {
    const a = await setup({ streaming: 'http404' });
    const chat = await mentionThread();
    const handle = await a.startStream(chat, {});
    const first = await a
      .updateStream(handle, { text: 'Hi', format: slackMarkdown })
      .catch((e: unknown) => e);
    expect((first as SwitchboardError).code).toBe('STREAM_UNAVAILABLE');
    expect(fake.callsOf('chat.postMessage')).toHaveLength(0);
    expect(a.capabilities(chat).nativeStream).toBe(false);
  });

  it('a stream with no text yet finishes as a plain message; DMs need no recipient', async () => {
    const a = await setup();
    const handle = await a.startStream('slack:D1:1.000001', {});
    const sent = await a.finishStream(handle, { text: 'Short answer', format: slackMarkdown });
    expect(fake.callsOf('chat.startStream')).toHaveLength(0);
    expect(visibleText(fake.state.get('D1', sent.messageId)!)).toBe('Short answer');
    const dm = await a.startStream('slack:D1:1.000001', {});
    await a.updateStream(dm, { text: 'streamed', format: slackMarkdown });
    expect(fake.callsOf('chat.startStream')[0]?.args.recipient_user_id).toBeUndefined();
    await a.finishStream(dm, { text: 'streamed', format: slackMarkdown });
  });
});
