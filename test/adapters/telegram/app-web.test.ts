/**
 * The web on Telegram, end to end: switchboard started as `npm start` starts
 * it, the real grammy bot against the fake Bot API, the fake Anthropic API.
 * In a group (edited messages, Telegram's real pace) the reply's status line
 * says what the API searches; the reply ends with the cited pages as links;
 * /cost shows the search.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { heldSearch } from '../../fakes/anthropic-web.js';
import { messageUpdate } from '../../fakes/telegram/index.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

let world: AppWorld;
const GROUP = -100700;

afterEach(async () => {
  await world?.close();
});

const messages = () => world.telegram.botMessages(GROUP);

describe('Telegram end to end: the web', () => {
  it('shows the search on the status line, links the cited pages under the reply, and /cost counts the search', async () => {
    world = await createAppWorld();
    await world.start();
    const page = { url: 'https://news.example.com/release', title: 'Release <b>notes</b> *now*' };
    const { script, release } = heldSearch('switchboard release', page);
    world.anthropic.enqueue(script);
    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: ANN }, "@switchboard_bot what's new?"));
    await world.telegram.waitFor(
      () => messages().some((m) => m.history.some((t) => t.includes('🔎 Searching: switchboard release'))),
      15_000,
    );
    release();
    await world.telegram.waitFor(() => messages().some((m) => m.text.includes('Sources:')), 15_000);
    const reply = messages().find((m) => m.text.includes('Sources:'));
    // A rich message: its Markdown source, the marks as text and each source a link.
    expect(reply?.rich).toBe(true);
    expect(reply?.text).toContain('Version 2 shipped. \\[1\\]');
    // The title is shown as written, as the text of a link to the page (never as markup of its own).
    expect(reply?.text).toContain(
      '\\[1\\] [Release \\<b\\>notes\\</b\\> \\*now\\*](<https://news.example.com/release>)',
    );

    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: ANN }, '/cost'));
    await world.telegram.waitFor(() => messages().some((m) => /1 web search: \$\d/.test(m.text)), 15_000);
    expect(world.telegram.state.calls.filter((c) => c.outcome === 429)).toEqual([]);
  });
});
