/**
 * The ready bot end to end: real discord.js against the fake Discord, the
 * real bot core and session, the real Anthropic SDK against its fake.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTENT_MESSAGE } from '../../../adapters/discord/index.js';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { heldSearch } from '../../fakes/anthropic-web.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { botTexts, lastUserText, startApp, startScaledApp } from './app.js';
import { mention } from './helpers.js';

/**
 * Tests that exercise pacing-heavy flows (streaming, approvals, edits, /stop)
 * use startScaledApp: the same parts with Discord's pace scaled down tenfold on
 * both the fake and the adapter. The others start exactly as `npm start` does.
 */
describe('Discord end to end', () => {
  let fake: FakeDiscord;
  let anthropic: FakeAnthropic;
  let root: string;
  let app: RunningApp | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord();
    anthropic = await startFakeAnthropic();
    root = await mkdtemp(join(tmpdir(), 'switchboard-discord-'));
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await fake.close();
    await anthropic.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Alice mentions the bot in #general; resolves with the new thread's id. */
  async function mentionInGeneral(text: string): Promise<{ threadId: string; openingId: string }> {
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} ${text}`,
    });
    const thread = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
    return { threadId: thread.id, openingId: opening.id };
  }

  /** Waits until the bot's last message in the thread reads `text` and has no buttons left. */
  function finalReply(threadId: string, text: string) {
    return fake.waitFor(
      () => {
        const last = botTexts(fake, threadId).at(-1);
        return last?.content === text && last.components.length === 0 ? last : undefined;
      },
      `final reply "${text.slice(0, 40)}"`,
    );
  }

  it('a mention opens a thread and the reply streams to the exact final text; a follow-up continues it', async () => {
    app = await startScaledApp(fake, anthropic, root);
    const answer = 'Here is the **answer**, with `code` and a list:\n\n- one\n- two';
    anthropic.enqueue({
      text: ['Here is the ', '**answer**, with ', '`code` and a list:\n\n', '- one\n- two'],
      chunkDelayMs: 40,
    });
    const { threadId } = await mentionInGeneral('what is in the repo?');
    await finalReply(threadId, answer);
    expect(lastUserText(anthropic)).toContain('what is in the repo?');
    // The reply was edited as it streamed, carrying a Stop button until the end.
    const streamed = botTexts(fake, threadId).at(-1)!;
    expect(streamed.history.length).toBeGreaterThan(1);
    expect(fake.calls.some((c) => JSON.stringify(c.body ?? '').includes('"label":"Stop"'))).toBe(true);
    expect(fake.rateLimitedCalls).toHaveLength(0);

    fake.userMessage({ channelId: threadId, author: fake.user('bob'), content: 'and the tests?' });
    await fake.waitFor(
      () => botTexts(fake, threadId).some((m) => m.content.includes('and the tests?')),
      'follow-up reply',
    );
    const history = JSON.stringify(anthropic.requests.at(-1).messages);
    expect(history).toContain('what is in the repo?');
    expect(history).toContain('Here is the **answer**');
    expect(fake.threadsOf(fake.generalId)).toHaveLength(1);
  });

  it("when Discord allows less than declared, its 429s reach the core's scheduler and the reply still ends exact", async () => {
    app = await startScaledApp(fake, anthropic, root);
    // The adapter declares 5 writes per 500 ms; the fake allows 2. A limit discord.js can see
    // coming (X-RateLimit headers) or Discord answers (429) is reported, and the scheduler waits.
    fake.rateLimit = { count: 2, windowMs: 500 };
    const chunks = Array.from({ length: 12 }, (_, i) => `part ${i}. `);
    anthropic.enqueue({ text: chunks, chunkDelayMs: 30 });
    const { threadId } = await mentionInGeneral('go slowly');
    await finalReply(threadId, chunks.join('').trim());
    // A message write Discord refused was made again later by the core, with the newest text.
    for (const limited of fake.rateLimitedCalls.filter((c) => c.path.includes('/messages'))) {
      const retried = fake.calls.some(
        (c) =>
          c.at >= limited.at && c.method === limited.method && c.path === limited.path && c.status === 200,
      );
      expect(retried).toBe(true);
    }
  });

  it("a 429 on the reply's send reaches the core, which waits it out; the reply still arrives whole, once", async () => {
    app = await startApp(fake, anthropic, root);
    const retryAfterMs = 600;
    // Discord's per-route answer (https://discord.com/developers/docs/topics/rate-limits), to the first message write.
    fake.addFault({ route: 'POST /channels/:id/messages', status: 429, retryAfterMs, times: 1 });
    const answer = 'The whole answer, after a wait.';
    anthropic.enqueue({ text: ['The whole ', 'answer, ', 'after a wait.'], chunkDelayMs: 20 });
    const { threadId } = await mentionInGeneral('answer after a 429');
    await finalReply(threadId, answer);
    const [limited, ...more] = fake.rateLimitedCalls;
    expect(more).toEqual([]);
    expect(limited).toMatchObject({ method: 'POST', path: `/channels/${threadId}/messages` });
    // The core, not discord.js, saw the 429: the ready bot's metrics count the send as rate limited.
    const metric = await app.metrics.registry.getSingleMetric('switchboard_platform_calls_total')?.get();
    const rateLimitedSends = (metric?.values ?? []).filter(
      (v) =>
        v.labels.platform === 'discord' && v.labels.method === 'send' && v.labels.outcome === 'rate_limited',
    );
    expect(rateLimitedSends.map((v) => v.value)).toEqual([1]);
    // The next message write to the thread waited out the retry-after.
    const next = fake.calls.find(
      (c) => c.at > limited!.at && c.method === 'POST' && c.path === limited!.path && c.status === 200,
    );
    expect(next!.at - limited!.at).toBeGreaterThanOrEqual(retryAfterMs - 50);
    // Whole and once: one message in the thread, holding the full answer.
    expect(botTexts(fake, threadId).map((m) => m.content)).toEqual([answer]);
  });

  it('/ask in a channel opens a thread and answers there', async () => {
    app = await startApp(fake, anthropic, root);
    anthropic.enqueue({ text: 'Forty-two.' });
    const interaction = fake.slashCommand({
      channelId: fake.generalId,
      user: fake.user('alice'),
      name: 'ask',
      options: { prompt: 'meaning of life?' },
    });
    const thread = await fake.waitFor(() => fake.threadsOf(fake.generalId)[0], 'thread');
    await finalReply(thread.id, 'Forty-two.');
    expect(interaction.callbacks).toEqual([5]);
    expect(fake.lateInteractionCallbacks).toBe(0);
    expect(lastUserText(anthropic)).toContain('meaning of life?');
  });

  it('approval buttons: someone else is refused, the requester approves, the message shows the outcome', async () => {
    app = await startScaledApp(fake, anthropic, root);
    anthropic.enqueue({
      text: 'Running it.',
      toolUse: [{ name: 'Bash', input: { command: 'echo approved-run' } }],
    });
    anthropic.enqueue({ text: 'It printed approved-run.' });
    const { threadId } = await mentionInGeneral('run echo');
    const prompt = await fake.waitFor(
      () =>
        fake
          .botMessages(threadId)
          .find((m) => m.components.some((r) => r.components.some((b) => b.label === 'Allow'))),
      'approval prompt',
    );
    const allow = prompt.components[0]!.components.find((b) => b.label === 'Allow')!.custom_id!;
    expect(allow.length).toBeLessThanOrEqual(100);

    const byBob = fake.pressButton({ messageId: prompt.id, user: fake.user('bob'), customId: allow });
    await fake.waitFor(() => byBob.originalId, 'refusal');
    expect(byBob.ephemeral).toBe(true);
    expect(fake.messages.get(byBob.originalId!)?.content).toBe('Only Alice or an admin can answer this.');

    const byAlice = fake.pressButton({ messageId: prompt.id, user: fake.user('alice'), customId: allow });
    await finalReply(threadId, 'It printed approved-run.');
    expect(byAlice.callbacks.length).toBe(1);
    expect(prompt.content).toContain('Allowed by Alice');
    expect(prompt.components).toEqual([]);
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('approved-run');
    expect(fake.lateInteractionCallbacks).toBe(0);
  });

  it('/stop aborts the running reply', async () => {
    app = await startScaledApp(fake, anthropic, root);
    anthropic.enqueue({ text: ['Starting a long answer', ' that never ends'], stallAfterChunks: 1 });
    const { threadId } = await mentionInGeneral('write a novel');
    await anthropic.waitFor(() => (anthropic.log[0]?.chunksSent ?? 0) >= 1);
    const stop = fake.slashCommand({ channelId: threadId, user: fake.user('alice'), name: 'stop' });
    await fake.waitFor(
      () => fake.messages.get(stop.originalId ?? '')?.content.startsWith('⏹'),
      '/stop answer',
    );
    expect(stop.callbacks).toEqual([5]);
    await anthropic.waitFor(() => anthropic.log[0]?.closedEarly === true);
    await fake.waitFor(
      () =>
        botTexts(fake, threadId).some(
          (m) => m.content.includes('Starting a long answer') && m.components.length === 0,
        ),
      'stopped reply without the Stop button',
    );
  });

  it('the Stop button on the streaming reply stops it', async () => {
    app = await startScaledApp(fake, anthropic, root);
    anthropic.enqueue({ text: ['Counting: one', ' two'], stallAfterChunks: 1 });
    const { threadId } = await mentionInGeneral('count forever');
    const live = await fake.waitFor(
      () =>
        fake
          .botMessages(threadId)
          .find((m) => m.components.some((r) => r.components.some((b) => b.label === 'Stop'))),
      'Stop button',
    );
    const stopId = live.components[0]!.components.find((b) => b.label === 'Stop')!.custom_id!;
    const press = fake.pressButton({ messageId: live.id, user: fake.user('alice'), customId: stopId });
    await anthropic.waitFor(() => anthropic.log[0]?.closedEarly === true);
    await fake.waitFor(
      () => live.components.length === 0 && live.content.includes('Counting: one'),
      'stopped reply',
    );
    await fake.waitFor(() => press.callbacks.length === 1, 'press answered');
    expect(fake.lateInteractionCallbacks).toBe(0);
  });

  it('editing the message that started the running turn aborts it and answers the new text', async () => {
    app = await startScaledApp(fake, anthropic, root);
    anthropic.enqueue({ text: ['Thinking about the first', ' question...'], stallAfterChunks: 1 });
    const { threadId, openingId } = await mentionInGeneral('first question');
    await anthropic.waitFor(() => (anthropic.log[0]?.chunksSent ?? 0) >= 1);
    fake.editUserMessage(openingId, `${mention(fake)} second question`);
    await anthropic.waitFor(() => anthropic.log[0]?.closedEarly === true && anthropic.requests.length >= 2);
    await fake.waitFor(
      () => botTexts(fake, threadId).some((m) => m.content.includes('second question')),
      'reply to edit',
    );
    expect(lastUserText(anthropic)).toContain('second question');
  });

  it('a reply over 2000 characters continues in new messages, the code block closed and reopened', async () => {
    app = await startApp(fake, anthropic, root);
    const lines = Array.from({ length: 120 }, (_, i) => `const value${i} = compute(${i});`);
    const reply = `Here is the file:\n\n\`\`\`ts\n${lines.join('\n')}\n\`\`\`\n\nThat is all.`;
    anthropic.enqueue({
      text: [reply.slice(0, 1500), reply.slice(1500, 3000), reply.slice(3000)],
      chunkDelayMs: 20,
    });
    const { threadId } = await mentionInGeneral('show me the file');
    // The first message is edited to its final part after the edit interval; wait for the whole text.
    const joined = () =>
      botTexts(fake, threadId)
        .map((m) => m.content)
        .join('\n');
    await fake.waitFor(
      () => lines.every((l) => joined().includes(l)) && joined().endsWith('That is all.'),
      'all parts',
    );
    const parts = botTexts(fake, threadId);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const part of parts) expect([...part.content].length).toBeLessThanOrEqual(2000);
    // The fence is closed at the end of the first part and reopened at the start of the next one.
    expect(parts[0]!.content.trimEnd().endsWith('```')).toBe(true);
    expect(parts[1]!.content.startsWith('```')).toBe(true);
    const all = parts.map((p) => p.content).join('\n');
    for (const line of lines) expect(all).toContain(line);
    expect(parts.every((p) => p.components.length === 0)).toBe(true);
  });

  it('after a restart, a message in the thread continues the same session', async () => {
    app = await startApp(fake, anthropic, root);
    anthropic.enqueue({ text: 'Noted: the code word is heron.' });
    const { threadId } = await mentionInGeneral('remember the code word heron');
    await finalReply(threadId, 'Noted: the code word is heron.');
    await app.stop();
    app = await startApp(fake, anthropic, root);
    fake.userMessage({ channelId: threadId, author: fake.user('alice'), content: 'what was the code word?' });
    await fake.waitFor(
      () => botTexts(fake, threadId).some((m) => m.content.includes('what was the code word?')),
      'reply after restart',
    );
    const history = JSON.stringify(anthropic.requests.at(-1).messages);
    expect(history).toContain('remember the code word heron');
    expect(history).toContain('Noted: the code word is heron.');
    expect(fake.gateway.log.filter((l) => l.op === 'identify')).toHaveLength(2);
  });

  it('start-up fails clearly when the Message Content intent is not enabled', async () => {
    fake.messageContentAllowed = false;
    await expect(startApp(fake, anthropic, root)).rejects.toThrow(INTENT_MESSAGE);
  });

  /** The model's reply mentions Bob, a role, and everyone; returns who its finished message pings. */
  async function replyPings(env: Record<string, string>): Promise<{ pings: string[]; content: string }> {
    app = await startApp(fake, anthropic, root, { env });
    const bob = fake.user('bob').id;
    anthropic.enqueue({ text: [`Ping <@${bob}> and <@&777>, `, 'also @everyone and @here. Done.'] });
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} who should I ask?`,
    });
    const thread = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
    const last = await fake.waitFor(() => {
      const m = botTexts(fake, thread.id).at(-1);
      return m?.content.endsWith('Done.') && m.components.length === 0 ? m : undefined;
    }, 'the finished reply');
    return { pings: [...last.pings].sort(), content: last.content };
  }

  /**
   * The model's mentions, as the people in the thread get them: the fake
   * decides who a message notifies from its content and allowed_mentions as
   * Discord does. By default nobody; SWITCHBOARD_ALLOW_MENTIONS=users lets
   * user mentions through, `all` also roles, @everyone and @here.
   */
  describe('mentions the model writes', () => {
    it('by default ping nobody, and read as written', async () => {
      const { pings, content } = await replyPings({});
      expect(pings).toEqual([]);
      expect(content).toContain('@\u200beveryone');
      // Escaped as Discord shows it: the mention's own characters, as text.
      expect(content).toContain(`\\<@${fake.user('bob').id}\\>`);
    });

    it('users: a user mention pings that user; roles and @everyone do not', async () => {
      const { pings } = await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'users' });
      expect(pings).toEqual([`user:${fake.user('bob').id}`]);
    });

    it('all: roles, @everyone and @here ping too', async () => {
      const { pings } = await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'all' });
      expect(pings).toEqual(['everyone', 'everyone', 'role:777', `user:${fake.user('bob').id}`]);
    });
  });

  /** Resolves once the bot has posted a message in `channelId` matching `pattern`. */
  const said = (channelId: string, pattern: RegExp) =>
    fake.waitFor(
      () => botTexts(fake, channelId).find((m) => pattern.test(m.content)),
      `a message ${pattern}`,
    );

  it('a text file attached in a DM is saved and read by the model', async () => {
    app = await startApp(fake, anthropic, root);
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    const csv = Buffer.from('region,total\nnorth,12\nsouth,30\n');
    fake.userMessage({
      channelId: dm.id,
      author: alice,
      content: 'which region sold more?',
      files: [{ filename: 'sales.csv', contentType: 'text/csv; charset=utf-8', data: csv }],
    });
    await said(dm.id, /You said: .*which region sold more/);
    const content = anthropic.requests[0].messages.at(-1).content as { type: string; text?: string }[];
    expect(content.some((b) => b.type === 'text' && b.text === csv.toString())).toBe(true);
    const [saved] = await readdir(join(root, 'workspace', 'uploads'));
    expect(saved).toMatch(/^\d{4}-\d{2}-\d{2}-sales\.csv$/);
    expect(await readFile(join(root, 'workspace', 'uploads', saved as string))).toEqual(csv);
    expect(JSON.stringify(content)).toContain(`saved as uploads/${saved}`);
  });

  it('an attachment over SWITCHBOARD_MAX_FILE_MB is named in the answer; the text runs without it', async () => {
    app = await startApp(fake, anthropic, root, { env: { SWITCHBOARD_MAX_FILE_MB: '0.01' } });
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    fake.userMessage({
      channelId: dm.id,
      author: alice,
      content: 'what broke?',
      files: [{ filename: 'trace.log', contentType: 'text/plain', data: Buffer.alloc(20_000, 65) }],
    });
    await said(
      dm.id,
      /"trace\.log" is larger than 0\.01 MB, the most I take, so I left it out and answered your text/,
    );
    await said(dm.id, /You said: .*what broke/);
    expect(JSON.stringify(anthropic.requests[0].messages)).not.toContain('trace.log');
  });

  it('/bg runs in a new thread of the channel and links it from the thread it was asked in', async () => {
    app = await startScaledApp(fake, anthropic, root);
    anthropic.enqueue({ text: 'Hello.' }, { text: 'Research done: 42.' });
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} hello there`,
    });
    const first = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
    await fake.waitFor(() => botTexts(fake, first.id).some((m) => m.content === 'Hello.'), 'first reply');
    fake.slashCommand({
      channelId: first.id,
      user: fake.user('alice'),
      name: 'bg',
      options: { prompt: 'research the answer' },
    });
    const done = await fake.waitFor(
      () => botTexts(fake, first.id).find((m) => m.content.startsWith('🧵 Background done')),
      'done line',
    );
    const threads = fake.threadsOf(fake.generalId);
    expect(threads).toHaveLength(2);
    const second = threads.find((t) => t.id !== first.id);
    expect(botTexts(fake, second?.id as string).map((m) => m.content)).toContain('Research done: 42.');
    expect(done.content).toContain('Research done: 42.');
    expect(done.content).toContain(second?.id);
    // A reply in the new thread continues the background session.
    anthropic.enqueue({ text: 'Going on.' });
    fake.userMessage({ channelId: second?.id as string, author: fake.user('alice'), content: 'go on' });
    await fake.waitFor(
      () => botTexts(fake, second?.id as string).some((m) => m.content === 'Going on.'),
      'follow-up',
    );
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('research the answer');
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).not.toContain('hello there');
  });

  it('the web: the search on the status line, the cited pages as masked links pinging nobody, /cost counts it', async () => {
    app = await startApp(fake, anthropic, root);
    const page = { url: 'https://news.example.com/release', title: '@everyone Release notes **now**' };
    const { script, release } = heldSearch('switchboard release @here', page);
    anthropic.enqueue(script);
    const { threadId } = await mentionInGeneral("what's new with switchboard?");
    const status = await fake.waitFor(
      () => botTexts(fake, threadId).find((m) => m.content.includes('🔎 Searching: switchboard release')),
      'status line',
    );
    release();
    const final = await fake.waitFor(
      () => botTexts(fake, threadId).find((m) => m.content.includes('Sources:')),
      'sources',
    );
    // Discord's Markdown: the marks escaped as text, each source a masked link.
    expect(final.content).toContain('Version 2 shipped. \\[1\\]');
    expect(final.content).toMatch(
      /\\\[1\\\] \[.*Release notes.*\]\(<https:\/\/news\.example\.com\/release>\)/,
    );
    // The page's title and the query are text: nobody is pinged, on the status line or in the reply.
    expect(status.pings).toEqual([]);
    expect(final.pings).toEqual([]);
    expect(final.content).not.toMatch(/(^|[^\\])\*\*now\*\*/);
    const cost = fake.slashCommand({ channelId: threadId, user: fake.user('alice'), name: 'cost' });
    await fake.waitFor(
      () => /1 web search: \$\d/.test(fake.messages.get(cost.originalId ?? '')?.content ?? ''),
      '/cost answer',
    );
    const web = anthropic.requests[0].tools.filter((t: { name: string }) => t.name.startsWith('web_'));
    expect(web.map((t: { type: string }) => t.type)).toEqual(['web_search_20260318', 'web_fetch_20260318']);
  });
});
