/**
 * The ready bot end to end on Slack: real Bolt over Socket Mode against the
 * fake Slack, the real bot core, session and stores, the real Anthropic SDK
 * against its fake. Paces are Slack's real ones (the fake enforces them).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { heldSearch } from '../../fakes/anthropic-web.js';
import { pdfBytes } from '../../fakes/pdfs.js';
import {
  buttonsOf,
  type FakeSlack,
  SlackRequestSender,
  startFakeSlack,
  visibleText,
} from '../../fakes/slack/index.js';
import { slackPings } from '../../fakes/slack/mentions.js';
import { lastUserText, startSlackApp } from './app.js';

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  fake.state.users.set('U2', 'Bob');
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-'));
});

afterEach(async () => {
  // At Slack's real paces the bot never earns a 429 from the fake.
  const limited = fake.rateLimited.map((c) => c.method);
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
  expect(limited).toEqual([]);
});

/** Waits until the bot's last message in the thread shows `text` and is no longer streaming. */
async function finalReply(channel: string, threadTs: string, text: string, timeoutMs = 10_000) {
  await fake
    .until(
      () => {
        const last = fake.botMessages(channel, threadTs).at(-1);
        return !!last && last.streamState !== 'streaming' && visibleText(last) === text;
      },
      timeoutMs,
      `final reply "${text.slice(0, 40)}"`,
    )
    .catch((err: Error) => {
      throw new Error(`${err.message}; the thread shows ${JSON.stringify(fake.botTexts(channel, threadTs))}`);
    });
}

describe('Slack end to end (npm start wiring)', () => {
  it('a mention is answered in its thread, streamed to the exact final text; a follow-up continues it', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const answer = 'Here is the **answer**, with `code` and a list:\n\n- one\n- two';
    anthropic.enqueue({
      text: ['Here is the ', '**answer**, with ', '`code` and a list:\n\n', '- one\n- two'],
      chunkDelayMs: 30,
    });
    const { ts } = await fake.userMessage({
      channel: 'C1',
      user: 'U1',
      text: '<@UBOT> what is in the repo?',
    });
    await finalReply('C1', ts, answer);
    expect(lastUserText(anthropic)).toContain('what is in the repo?');
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
    expect(fake.rateLimited).toHaveLength(0);

    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'and the tests?', threadTs: ts });
    await finalReply('C1', ts, 'You said: [Bob] and the tests?');
    const history = JSON.stringify(anthropic.requests.at(-1).messages);
    expect(history).toContain('what is in the repo?');
    expect(history).toContain('Here is the **answer**');
    expect(fake.botMessages('C1', ts)).toHaveLength(2);
  });

  it('falls back to a placeholder edited with chat.update when the API has no streams', async () => {
    fake.streaming = 'unknown_method';
    app = await startSlackApp(fake, anthropic, root);
    const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'hello there' });
    await finalReply('D1', ts, 'You said: [Alice] hello there');
    expect(fake.callsOf('chat.postMessage').length).toBeGreaterThan(0);
    expect(fake.rateLimited).toHaveLength(0);
    // Later replies use the edit path from the start.
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'again', threadTs: ts });
    await finalReply('D1', ts, 'You said: [Alice] again');
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
  });

  it('slash commands: /switchboard compact with a focus, /switchboard rename', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const { ts } = await fake.userMessage({
      channel: 'C1',
      user: 'U1',
      text: '<@UBOT> remember Ada and Grace',
    });
    await finalReply('C1', ts, 'You said: [Alice] remember Ada and Grace');
    // The turn ends in the core just after Slack shows the text; /compact waits for an idle chat.
    await app.bot.idle();
    anthropic.enqueue({ text: 'Summary: Ada and Grace were mentioned.' });
    const { ack } = await fake.slashCommand({
      channel: 'C1',
      user: 'U1',
      text: 'compact keep the names',
      threadTs: ts,
    });
    expect(ack?.latencyMs).toBeLessThan(3000);
    await fake.until(
      () => fake.state.ephemerals.some((e) => e.text.startsWith('Compacted')),
      10_000,
      'compacted',
    );
    expect(JSON.stringify(anthropic.requests.at(-1))).toContain('Focus of this summary: keep the names');
    expect(fake.state.ephemerals.at(-1)).toMatchObject({ channel: 'C1', user: 'U1', threadTs: ts });

    // From the channel (no thread given): the person's own session thread, and the user is told which.
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'rename ada-notes' });
    await fake.until(() => fake.state.ephemerals.some((e) => e.text.includes('Renamed')), 10_000, 'renamed');
    expect(fake.state.ephemerals.at(-1)?.text).toMatch(
      /^In <.*\|your thread>: Renamed this session to "ada-notes"\.$/,
    );
    expect(fake.state.ephemerals.at(-1)?.threadTs).toBe(ts);
  });

  it('approvals: another user is refused privately, the requester allows, the prompt shows the outcome', async () => {
    app = await startSlackApp(fake, anthropic, root);
    anthropic.enqueue(
      { toolUse: [{ name: 'Write', input: { file_path: 'note.txt', content: 'hi' } }] },
      { text: 'Wrote note.txt.' },
    );
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> write a note' });
    await fake.until(
      () => fake.botMessages('C1', ts).some((m) => (m.blocks ?? []).some((b) => b.type === 'actions')),
      10_000,
      'approval prompt',
    );
    const prompt = fake
      .botMessages('C1', ts)
      .find((m) => (m.blocks ?? []).some((b) => b.type === 'actions'))!;
    expect(visibleText(prompt)).toMatch(
      /^🔐 Write wants to write `.*note\.txt.*` \(1 line\):\n\n```\nhi\n```\n\[Allow\] \[Allow for this session\] \[Always allow\] \[Deny\]$/,
    );
    const allow = (prompt.blocks ?? []).flatMap((b) => b.elements ?? []).find((e) => e.text.text === 'Allow');

    await fake.pressButton({ user: 'U2', channel: 'C1', messageTs: prompt.ts, value: allow.value });
    await fake.until(() => fake.state.ephemerals.some((e) => e.user === 'U2'), 5000, 'refusal');
    expect(fake.state.ephemerals.find((e) => e.user === 'U2')?.text).toBe(
      'Only Alice or an admin can answer this.',
    );

    await fake.pressButton({ user: 'U1', channel: 'C1', messageTs: prompt.ts, value: allow.value });
    await finalReply('C1', ts, 'Wrote note.txt.');
    await fake.until(() => !visibleText(prompt).includes('[Allow]'), 10_000, 'outcome');
    expect(visibleText(prompt)).toMatch(
      /^🔐 Write wants to write `.*note\.txt.*` \(1 line\):\n\n```\nhi\n```\s+✅ Allowed by Alice$/,
    );
    expect(fake.state.ephemerals.find((e) => e.user === 'U1')?.text).toBe('Allowed.');
    expect(fake.botTexts('C1', ts)).toEqual([visibleText(prompt), 'Wrote note.txt.']);
  });

  it('stop typed in the thread stops the running turn', async () => {
    app = await startSlackApp(fake, anthropic, root);
    anthropic.enqueue({ text: ['Thinking about it', ' for a long time', ' and more'], stallAfterChunks: 1 });
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> a long task' });
    await fake.until(
      () => fake.botMessages('C1', ts).some((m) => visibleText(m).includes('Thinking')),
      10_000,
      'stream started',
    );
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'stop', threadTs: ts });
    await fake.until(
      () => fake.botTexts('C1', ts).some((t) => t.includes('Stopped the current reply')),
      10_000,
      'stop notice',
    );
    await fake.until(
      () => fake.botMessages('C1', ts).every((m) => m.streamState !== 'streaming'),
      10_000,
      'stream closed',
    );
    expect(fake.botTexts('C1', ts)).toEqual([
      'Thinking about it\n\n_⏹ stopped_',
      '⏹ Stopped the current reply.',
    ]);
  });

  it('/switchboard stop from the channel stops the running turn of its most recent thread', async () => {
    app = await startSlackApp(fake, anthropic, root);
    anthropic.enqueue({ text: ['Thinking about it', ' for a long time'], stallAfterChunks: 1 });
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> a long task' });
    await fake.until(
      () => fake.botMessages('C1', ts).some((m) => visibleText(m).includes('Thinking')),
      10_000,
      'stream started',
    );
    const { ack } = await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'stop' });
    expect(ack?.latencyMs).toBeLessThan(3000);
    await fake.until(
      () => fake.state.ephemerals.some((e) => e.text.includes('Stopped the current reply')),
      10_000,
      'stop answer',
    );
    expect(fake.state.ephemerals.at(-1)).toMatchObject({ user: 'U1', threadTs: ts });
    await fake.until(
      () => fake.botTexts('C1', ts).includes('Thinking about it\n\n_⏹ stopped_'),
      10_000,
      'stopped reply',
    );
  });

  it('editing the message that started the running turn restarts it with the new text', async () => {
    app = await startSlackApp(fake, anthropic, root);
    anthropic.enqueue({ text: ['Working on the old', ' request'], stallAfterChunks: 1 });
    const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'count to three' });
    await fake.until(() => anthropic.requests.length === 1, 10_000, 'first request');
    await fake.editMessage('D1', ts, 'count to five');
    await fake.until(
      () => fake.botTexts('D1', ts).includes('You said: [Alice] count to five'),
      10_000,
      'answer to the edit',
    );
    expect(lastUserText(anthropic)).toContain('count to five');
  });

  it('a redelivered event is not answered twice', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const { ts, bodies } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'only once please' });
    await finalReply('D1', ts, 'You said: [Alice] only once please');
    await fake.deliver('events_api', bodies[0]!, { retryAttempt: 1 });
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'marker', threadTs: ts });
    await finalReply('D1', ts, 'You said: [Alice] marker');
    expect(fake.botTexts('D1', ts).filter((t) => t === 'You said: [Alice] only once please')).toHaveLength(1);
    expect(anthropic.requests).toHaveLength(2);
  });

  it('a long reply continues in new messages in the thread', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const paragraphs = Array.from(
      { length: 30 },
      (_, i) => `Paragraph ${i}: ${'lorem ipsum '.repeat(25).trim()}.`,
    );
    const long = paragraphs.join('\n\n');
    anthropic.enqueue({ text: [long.slice(0, 4000), long.slice(4000, 8000), long.slice(8000)] });
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> write a lot' });
    await fake.until(
      () => {
        const msgs = fake.botMessages('C1', ts);
        return (
          msgs.length >= 3 &&
          msgs.every((m) => m.streamState !== 'streaming') &&
          fake.botTexts('C1', ts).join('\n\n') === long
        );
      },
      15_000,
      'long reply',
    );
    for (const text of fake.botTexts('C1', ts)) expect(text.length).toBeLessThanOrEqual(3900);
    expect(fake.rateLimited).toHaveLength(0);
  });

  it('after a restart over the same data directory the thread continues its session without a mention', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> my name is Ada' });
    await finalReply('C1', ts, 'You said: [Alice] my name is Ada');
    await app.bot.idle();
    await app.stop();
    await fake.socket.waitForDisconnect();
    app = await startSlackApp(fake, anthropic, root);
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'what is my name?', threadTs: ts });
    await finalReply('C1', ts, 'You said: [Alice] what is my name?');
    const history = JSON.stringify(anthropic.requests.at(-1).messages);
    expect(history).toContain('my name is Ada');
  });

  it('HTTP mode (SLACK_SIGNING_SECRET, SLACK_PORT): signed events are answered, unsigned ones are not', async () => {
    app = await startSlackApp(fake, anthropic, root, {
      SLACK_SIGNING_SECRET: 'e2e-signing-secret',
      SLACK_PORT: '0',
    });
    const slack = app.adapters.find((a) => a.platform === 'slack') as SlackAdapter;
    expect(fake.callsOf('apps.connections.open')).toHaveLength(0);
    fake.httpTarget = new SlackRequestSender(slack.url as string, 'e2e-signing-secret');
    const forged = fake.eventBody({
      type: 'message',
      channel: 'D1',
      channel_type: 'im',
      user: 'U1',
      text: 'forged',
      ts: '9.1',
    });
    expect((await fake.deliver('events_api', forged, { signature: 'bad' })).http?.status).toBe(401);
    const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'over http' });
    await finalReply('D1', ts, 'You said: [Alice] over http');
    expect(JSON.stringify(anthropic.requests)).not.toContain('forged');
  });
});

/** What the model writes: every kind of Slack mention, as tokens and as link targets. */
const REPLY = [
  'Heads up <!channel> and <!here>, also <!everyone|all>.',
  'Ask <!subteam^S1|devs> or <@U2>, see [this](!channel) and [him](@U2).',
  'Done.',
];

/** Streams the reply in a thread of C1 and returns the pings of the finished message and what it reads. */
async function replyPings(env: Record<string, string>): Promise<{ pings: string[]; text: string }> {
  app = await startSlackApp(fake, anthropic, root, env);
  // Small deltas, so tokens arrive cut in pieces as a model's would.
  const text = REPLY.join('\n\n');
  const deltas = text.match(/[\s\S]{1,5}/g) ?? [];
  anthropic.enqueue({ text: deltas, chunkDelayMs: 5 });
  const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> who should I ask?' });
  await fake.until(
    () => {
      // Finished: the stream closed, or the edited message lost its Stop button.
      const last = fake.botMessages('C1', ts).at(-1);
      const done =
        last?.streamState === 'completed' || (!last?.streamState && buttonsOf(last?.blocks).length === 0);
      return !!last && done && visibleText(last).endsWith('Done.');
    },
    15_000,
    'the finished reply',
  );
  const messages = fake.botMessages('C1', ts);
  return {
    pings: [...new Set(messages.flatMap(slackPings))].sort(),
    text: messages.map(visibleText).join('\n'),
  };
}

/**
 * The model's mentions, as the people in the channel get them: the fake's
 * `slackPings` decides who a message notifies as Slack does. By default
 * nobody, through a chat stream and through edited messages alike;
 * SWITCHBOARD_ALLOW_MENTIONS=users lets user mentions through, `all` also
 * the channel-wide ones.
 */
describe('Slack: mentions the model writes', () => {
  it('by default ping nobody in a chat stream, and read as written', async () => {
    const { pings, text } = await replyPings({});
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
    expect(pings).toEqual([]);
    for (const word of ['channel', 'here', 'everyone|all', 'subteam^S1|devs', '@U2'])
      expect(text).toContain(word);
    // Every stream update showed a prefix of the next: nothing was taken back.
    const history = fake.botMessages('C1').at(-1)?.history ?? [];
    for (let i = 1; i < history.length; i++) expect(history[i]!.startsWith(history[i - 1]!)).toBe(true);
  });

  it('by default ping nobody in edited messages either (no chat streams)', async () => {
    fake.streaming = 'unknown_method';
    const { pings, text } = await replyPings({});
    expect(fake.callsOf('chat.update').length + fake.callsOf('chat.postMessage').length).toBeGreaterThan(0);
    expect(pings).toEqual([]);
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('users: a user mention pings that user, and nobody else is pinged', async () => {
    expect((await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'users' })).pings).toEqual(['@U2']);
  });

  it('users: the same through edited messages', async () => {
    fake.streaming = 'unknown_method';
    expect((await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'users' })).pings).toEqual(['@U2']);
  });

  it('all: the channel-wide mentions ping too', async () => {
    const { pings } = await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'all' });
    expect(pings).toEqual(['!channel', '!everyone', '!here', '!subteam^S1', '@U2']);
  });
});

const shows = (pattern: RegExp) => () => fake.botMessages('D1').some((m) => pattern.test(visibleText(m)));

describe('Slack end to end: files into the chat', () => {
  it('a PDF shared in a DM is downloaded with the bot token, saved, and read by the model', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const pdf = pdfBytes(1);
    const file = fake.addFile('plan.pdf', 'application/pdf', pdf);
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'summarise this', files: [file] });
    await fake.until(shows(/You said: .*summarise this/), 10_000, 'the reply');
    const content = anthropic.requests[0].messages.at(-1).content;
    expect(content.find((b: { type: string }) => b.type === 'document')).toMatchObject({
      source: { media_type: 'application/pdf', data: pdf.toString('base64') },
    });
    const [saved] = await readdir(join(root, 'workspace', 'uploads'));
    expect(saved).toMatch(/^\d{4}-\d{2}-\d{2}-plan\.pdf$/);
    expect(await readFile(join(root, 'workspace', 'uploads', saved as string))).toEqual(pdf);
    expect(fake.state.fileDownloads).toEqual([file.id]);
  });

  it('a file over SWITCHBOARD_MAX_FILE_MB is named in the answer; the text runs without it', async () => {
    app = await startSlackApp(fake, anthropic, root, { SWITCHBOARD_MAX_FILE_MB: '0.01' });
    const file = fake.addFile('huge.log', 'text/plain', Buffer.alloc(20_000, 65));
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'why did it crash?', files: [file] });
    await fake.until(
      shows(/"huge\.log" is larger than 0\.01 MB, the most I take, so I left it out and answered your text/),
      10_000,
      'the answer naming the file',
    );
    await fake.until(shows(/You said: .*why did it crash/), 10_000, 'the reply');
    expect(fake.state.fileDownloads).toEqual([]);
    expect(JSON.stringify(anthropic.requests[0].messages)).not.toContain('huge.log');
  });
});

describe('Slack: /bg', () => {
  it('/bg runs in a new thread of the channel and links it from the thread it was asked in', async () => {
    app = await startSlackApp(fake, anthropic, root);
    anthropic.enqueue({ text: 'Hello.' }, { text: 'Research done: 42.' });
    const { ts } = await fake.userMessage({
      channel: 'C1',
      user: 'U1',
      text: `<@${fake.botUserId}> hello there`,
    });
    await fake.until(() => fake.botTexts('C1', ts).includes('Hello.'), 10_000, 'first reply');
    await fake.userMessage({ channel: 'C1', user: 'U1', text: '!bg research the answer', threadTs: ts });
    await fake.until(
      () => fake.botTexts('C1', ts).some((t) => t.startsWith('🧵 Background done')),
      10_000,
      'done line',
    );
    // A new top-level message opened the background thread; the reply is in it.
    const opener = fake.botMessages('C1').find((m) => m.threadTs === undefined && m.ts !== ts);
    expect(opener && visibleText(opener)).toBe('🧵 Background: research the answer');
    const thread = opener?.ts as string;
    await fake.until(() => fake.botTexts('C1', thread).includes('Research done: 42.'), 10_000, 'bg reply');
    const line = fake.botTexts('C1', ts).find((t) => t.startsWith('🧵 Background done')) as string;
    expect(line).toContain('Research done: 42.');
    expect(line).toContain(`/archives/C1/p${thread.replace('.', '')}`);
    // A reply in the new thread continues the background session.
    anthropic.enqueue({ text: 'Going on.' });
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'go on', threadTs: thread });
    await fake.until(() => fake.botTexts('C1', thread).includes('Going on.'), 10_000, 'follow-up');
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('research the answer');
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).not.toContain('hello there');
  });
});

describe('Slack end to end: the web', () => {
  it('ends the streamed reply with the cited pages as links pinging nobody; /cost counts the search', async () => {
    // A native stream cannot take a line back: a streamed reply shows no status line, for the web as for every tool.
    app = await startSlackApp(fake, anthropic, root);
    const page = { url: 'https://news.example.com/release', title: '<!channel> Release *notes*' };
    const { script, release } = heldSearch('switchboard release', page);
    anthropic.enqueue(script);
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: "<@UBOT> what's new?" });
    release();
    const withSources = () => fake.botMessages('C1', ts).find((m) => visibleText(m).includes('Sources:'));
    await fake.until(() => withSources() !== undefined, 10_000, 'sources');
    const reply = withSources();
    if (!reply) throw new Error('no reply with sources');
    expect(visibleText(reply)).toContain('Version 2 shipped. [1]');
    expect(visibleText(reply)).toContain('](https://news.example.com/release)');
    expect(slackPings(reply)).toEqual([]);
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'cost', threadTs: ts });
    await fake.until(
      // The answer goes to the person who asked, as an ephemeral message.
      () => fake.state.ephemerals.some((e) => e.user === 'U1' && /1 web search: \$\d/.test(e.text)),
      10_000,
      '/cost answer',
    );
  });
});
