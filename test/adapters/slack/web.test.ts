/**
 * The web on Slack, end to end: the ready bot as `npm start` runs it, real
 * Bolt over Socket Mode against the fake Slack, the real Anthropic SDK
 * against its fake, at Slack's real paces. The cited pages close the reply
 * as links, /cost counts the search. A native stream cannot take a line
 * back, so a streamed Slack reply shows no status line, for the web as for
 * every tool.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { citedText, searchBlocks } from '../../fakes/anthropic-web.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../../fakes/slack/index.js';
import { slackPings } from '../../fakes/slack/mentions.js';
import { startSlackApp } from './app.js';

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

async function start(streaming: 'on' | 'unknown_method') {
  fake = await startFakeSlack({ streaming });
  fake.state.users.set('U1', 'Alice');
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-web-'));
  app = await startSlackApp(fake, anthropic, root);
}

afterEach(async () => {
  const limited = fake.rateLimited.map((c) => c.method);
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
  expect(limited).toEqual([]);
});

const page = { url: 'https://news.example.com/release', title: '<!channel> Release *notes*' };

/** A search held until `release` is called, then a reply citing the page. */
function scriptSearch() {
  let release = () => {};
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  anthropic.enqueue({
    blocks: [
      ...searchBlocks('switchboard release', [page]),
      citedText('Version 2 shipped.', { ...page, quote: 'Version 2 shipped' }),
    ],
    hold: { after: 2, until: hold },
  });
  return release;
}

const shown = (channel: string, ts: string) => fake.botMessages(channel, ts).map((m) => visibleText(m));

describe('Slack end to end: the web', () => {
  it('ends the streamed reply with the cited pages as links; /cost counts the search', async () => {
    await start('on');
    const release = scriptSearch();
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: "<@UBOT> what's new?" });
    release();
    await fake.until(() => shown('C1', ts).some((t) => t.includes('Sources:')), 10_000, 'sources');
    const reply = fake.botMessages('C1', ts).find((m) => visibleText(m).includes('Sources:'));
    if (!reply) throw new Error('no reply with sources');
    const text = visibleText(reply);
    expect(text).toContain('Version 2 shipped.');
    expect(text).toMatch(/\[1\]/);
    // The link goes to the page; the title's broadcast stays text and pings nobody.
    expect(JSON.stringify(reply)).toContain('https://news.example.com/release');
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
