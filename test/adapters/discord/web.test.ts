/**
 * The web on Discord, end to end: the ready bot as `npm start` runs it, real
 * discord.js against the fake Discord, the real Anthropic SDK against its
 * fake. While the API searches, the reply's status line says so; the cited
 * pages come as masked links under the reply, a hostile page title pings
 * nobody; /cost shows the search.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { citedText, searchBlocks } from '../../fakes/anthropic-web.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { botTexts, startApp } from './app.js';
import { mention } from './helpers.js';

describe('Discord: the web', () => {
  let fake: FakeDiscord;
  let anthropic: FakeAnthropic;
  let root: string;
  let app: RunningApp | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord();
    anthropic = await startFakeAnthropic();
    root = await mkdtemp(join(tmpdir(), 'switchboard-discord-web-'));
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await fake.close();
    await anthropic.close();
    await rm(root, { recursive: true, force: true });
  });

  it('shows the search on the status line, then the reply with linked sources; /cost counts the search', async () => {
    app = await startApp(fake, anthropic, root);
    let searched = () => {};
    const hold = new Promise<void>((resolve) => {
      searched = resolve;
    });
    const page = { url: 'https://news.example.com/release', title: '@everyone Release notes **now**' };
    anthropic.enqueue({
      blocks: [
        ...searchBlocks('switchboard release @here', [page]),
        citedText('Version 2 shipped.', { ...page, quote: '@everyone Version 2 shipped' }),
      ],
      hold: { after: 2, until: hold },
    });
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} what's new with switchboard?`,
    });
    const thread = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
    const status = await fake.waitFor(
      () => botTexts(fake, thread.id).find((m) => m.content.includes('🔎 Searching: switchboard release')),
      'status line',
    );
    searched();
    const final = await fake.waitFor(
      () => botTexts(fake, thread.id).find((m) => m.content.includes('Sources:')),
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

    const cost = fake.slashCommand({ channelId: thread.id, user: fake.user('alice'), name: 'cost' });
    const answer = await fake.waitFor(
      () =>
        fake.messages.get(cost.originalId ?? '')?.content.match(/1 web search: \$\d/) &&
        fake.messages.get(cost.originalId ?? ''),
      '/cost answer',
    );
    expect(answer?.content).toContain('This session:');
    const request = anthropic.requests[0];
    const web = request.tools.filter((t: { name: string }) => t.name.startsWith('web_'));
    expect(web.map((t: { type: string }) => t.type)).toEqual(['web_search_20260318', 'web_fetch_20260318']);
  });
});
