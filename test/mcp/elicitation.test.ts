/**
 * A server's question in the middle of a call (MCP elicitation), through
 * the bot to the person who started the turn: the published
 * server-everything's `trigger-elicitation-request` asks for twelve fields
 * of every kind (text, email, uri, date, integer, number, boolean, enums in
 * each spelling, multi-selects). Buttons answer options and yes/no, the
 * person's messages answer the rest and are checked against the schema;
 * Decline, Cancel and the approval timeout end it; only the requester or an
 * admin may answer; the call's silence timer waits while a person is asked.
 */
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { everythingStdio, startEverythingHttp } from '../fixtures/mcp/published.js';
import { startRemoteMcp } from '../fixtures/mcp/remote-server.js';
import type { BotHarness } from '../helpers/bot-harness.js';
import { USERS } from '../helpers/bot-harness.js';
import { useCleanups } from '../helpers/cleanups.js';
import { closingMcpWorlds, type McpWorld } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
const cleanups = useCleanups();
const ASK = 'mcp__everything__trigger-elicitation-request';
const APPROVAL_TIMEOUT_MS = 60_000;

/** server-everything, its tools allowed without asking, a short silence timeout for the servers. */
function everything(): Promise<McpWorld> {
  return startMcpWorld(
    { everything: { ...everythingStdio, permission: 'inspect' } },
    { mcp: { callTimeoutMs: 5_000 }, harness: { approvalTimeoutMs: APPROVAL_TIMEOUT_MS } },
  );
}

/** Starts a turn whose one call asks the question, and waits for its first field. */
async function startAsking(h: BotHarness): Promise<StoredMessage> {
  h.fakeAnthropic.enqueue({ text: 'Asking.', toolUse: [{ name: ASK, input: {} }] }, { text: 'Done.' });
  await h.message('ask me things');
  return question(h, 'String');
}

/** The question message, once it asks for the field labelled `label`. */
async function question(h: BotHarness, label: string): Promise<StoredMessage> {
  let found: StoredMessage | undefined;
  await h.until(() => {
    found = h.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('❓'));
    return found?.text.includes(`\n\n${label}`) === true && found.buttons.length > 0;
  }, `question for ${label}`);
  return found as StoredMessage;
}

function buttonLabelled(message: StoredMessage, label: string): string {
  const found = message.buttons.flat().find((b) => b.label === label || b.label.startsWith(`${label} (`));
  if (!found) throw new Error(`no button "${label}" on: ${message.buttons.flat().map((b) => b.label)}`);
  return found.payload;
}

/** What the tool returned to the model, as text. */
function toolResult(h: BotHarness): string {
  return toolResults(h.fakeAnthropic.requests).at(-1)?.text ?? '';
}

describe('a question from an MCP server', () => {
  it('is filled in with buttons and replies, checked against the schema, and the answers reach the server', async () => {
    const { h, mcpClock } = await everything();
    await startAsking(h);
    // The person is thinking: the call's silence timer is held, so time may pass.
    expect(mcpClock.pending).toBe(0);
    await h.message('Ada Lovelace');
    let q = await question(h, 'Boolean');
    expect(q.text).toContain('✓ String: Ada Lovelace');
    expect(await h.press(buttonLabelled(q, 'Yes'))).toEqual(['Noted.']);
    q = await question(h, 'String with default');
    await h.press(buttonLabelled(q, 'Skip'));
    await question(h, 'String with email format');
    await h.message('not an email');
    await h.until(() => h.texts().some((t) => t.startsWith('⚠️ That is not an email address.')), 're-asked');
    await h.message('ada@example.org');
    await question(h, 'String with uri format');
    await h.message('https://ada.example.org');
    await question(h, 'String with date format');
    await h.message('1815-12-10');
    q = await question(h, 'Integer');
    await h.message('101');
    await h.until(() => h.texts().some((t) => t.startsWith('⚠️ The number must be from 1 to 100.')), 'range');
    await h.message('7');
    await h.message('2.5');
    q = await question(h, 'Untitled Single Select Enum');
    await h.press(buttonLabelled(q, 'Joey'));
    await question(h, 'Untitled Multiple Select Enum');
    await h.message('Piano, drums');
    q = await question(h, 'Titled Single Select Enum');
    await h.press(buttonLabelled(q, 'Wonder Woman'));
    q = await question(h, 'Titled Multiple Select Enum');
    await h.press(buttonLabelled(q, 'Skip'));
    q = await question(h, 'Legacy Titled Single Select Enum');
    expect(await h.press(buttonLabelled(q, 'Dogs'))).toEqual(['Sent.']);
    await h.settle();
    const result = toolResult(h);
    expect(result).toContain('✅ User provided the requested information!');
    const raw = JSON.parse(result.slice(result.indexOf('{'))) as { action: string; content: unknown };
    expect(raw).toEqual({
      action: 'accept',
      content: {
        name: 'Ada Lovelace',
        check: true,
        firstLine: 'It was a dark and stormy night.',
        email: 'ada@example.org',
        homepage: 'https://ada.example.org',
        birthdate: '1815-12-10',
        integer: 7,
        number: 2.5,
        untitledSingleSelectEnum: 'Joey',
        untitledMultipleSelectEnum: ['Piano', 'Drums'],
        titledSingleSelectEnum: 'hero-3',
        titledMultipleSelectEnum: ['fish-1'],
        legacyTitledEnum: 'pet-2',
      },
    });
    const settled = h.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('❓'));
    expect(settled?.buttons).toEqual([]);
    expect(settled?.text).toContain('✅ Answered by Alice');
    // The replies answered the question: none of them started a turn.
    expect(h.fakeAnthropic.requests.length).toBe(2);
  });

  it('is declined with Decline, and the model hears so', async () => {
    const { h } = await everything();
    const q = await startAsking(h);
    expect(await h.press(buttonLabelled(q, 'Decline'))).toEqual(['Declined.']);
    await h.settle();
    expect(toolResult(h)).toContain('❌ User declined to provide the requested information.');
    expect(h.texts().find((t) => t.startsWith('❓'))).toContain('🚫 Declined by Alice');
  });

  it('is cancelled when nobody answers within the approval timeout', async () => {
    const { h } = await everything();
    await startAsking(h);
    await h.clock.advance(APPROVAL_TIMEOUT_MS);
    await h.settle();
    expect(toolResult(h)).toContain('⚠️ User cancelled the elicitation dialog.');
    expect(h.texts().find((t) => t.startsWith('❓'))).toContain('⏹ Cancelled: no answer in time');
  });

  it('is answered only by the person who asked or an admin: others are refused, their messages are messages', async () => {
    const { h } = await everything();
    const q = await startAsking(h);
    expect(await h.press(buttonLabelled(q, 'Decline'), { user: USERS.bob })).toEqual([
      'Only Alice or an admin can answer this.',
    ]);
    // Bob's message is his own (it joins the running reply as his words), not an answer to Alice's question.
    await h.message('Bob here', { user: USERS.bob });
    expect((await question(h, 'String')).text).not.toContain('✓');
    await h.message('Admin Name', { user: USERS.admin });
    const next = await question(h, 'Boolean');
    expect(next.text).toContain('✓ String: Admin Name');
    await h.press(buttonLabelled(next, 'Cancel'), { user: USERS.admin });
    await h.settle();
    expect(toolResults(h.fakeAnthropic.requests).some((r) => r.text.includes('User cancelled'))).toBe(true);
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).toContain('Bob here');
  });

  it('is cancelled when the reply is stopped, and the buttons go', async () => {
    const { h } = await everything();
    await startAsking(h);
    expect(await h.ask('stop')).toMatch(/Stopped/);
    await h.settle();
    const settled = h.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('❓'));
    expect(settled?.text).toContain('⏹ Cancelled: the reply was stopped');
    expect(settled?.buttons).toEqual([]);
  });

  it('is declined without asking anyone when the call has no chat', async () => {
    const { h, mcp } = await everything();
    const tool = mcp.tools().find((t) => t.name === ASK);
    const result = await tool?.run(
      {},
      { cwd: '.', signal: new AbortController().signal, env: {}, clock: h.clock },
    );
    expect(result?.content).toContain('❌ User declined to provide the requested information.');
    expect(h.texts().some((t) => t.startsWith('❓'))).toBe(false);
  });

  it('is declined without asking when calls from two chats run on the server at once', async () => {
    const { h } = await everything();
    // The fake model answers in the order requests come: Alice's call, Bob's call and reply, Alice's reply.
    h.fakeAnthropic.enqueue({ toolUse: [{ name: ASK, input: {} }] });
    await h.message('ask me things');
    const q = await question(h, 'String');
    // Bob's call asks too, while Alice's still runs: whose question it is cannot be told.
    const bobs = 'test:200';
    h.fakeAnthropic.enqueue({ toolUse: [{ name: ASK, input: {} }] }, { text: 'Bob got no question.' });
    await h.message('ask me too', { chat: bobs, user: USERS.bob });
    await h.until(() => h.texts(bobs).includes('Bob got no question.'), 'the reply to Bob');
    expect(toolResult(h)).toContain('❌ User declined');
    expect(h.texts(bobs).some((t) => t.startsWith('❓'))).toBe(false);
    // Alice's own question still waits for her.
    h.fakeAnthropic.enqueue({ text: 'Alice declined.' });
    await h.press(buttonLabelled(q, 'Decline'));
    await h.settle();
    expect(h.texts()).toContain('Alice declined.');
  });

  it('is asked over Streamable HTTP too', async () => {
    const server = await startEverythingHttp();
    cleanups.push(() => server.kill());
    const { h } = await startMcpWorld(
      { everything: { type: 'http', url: server.url, permission: 'inspect' } },
      { harness: { approvalTimeoutMs: APPROVAL_TIMEOUT_MS } },
    );
    const q = await startAsking(h);
    await h.press(buttonLabelled(q, 'Cancel'));
    await h.settle();
    expect(toolResult(h)).toContain('⚠️ User cancelled the elicitation dialog.');
  });

  it('with nothing to fill in is a confirmation: Accept, Decline or Cancel', async () => {
    const remote = await startRemoteMcp();
    cleanups.push(() => remote.close());
    const { h } = await startMcpWorld({ remote: { type: 'http', url: remote.url } });
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'mcp__remote__confirm', input: {} }] },
      { text: 'Confirmed.' },
    );
    await h.message('go');
    let q: StoredMessage | undefined;
    await h.until(() => {
      q = h.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('❓') && m.buttons.length > 0);
      return q !== undefined;
    }, 'the confirmation');
    expect(q?.text).toBe('❓ remote asks Alice: Go ahead?');
    expect(q?.buttons.flat().map((b) => b.label)).toEqual(['Accept', 'Decline', 'Cancel']);
    expect(await h.press(buttonLabelled(q as StoredMessage, 'Accept'))).toEqual(['Sent.']);
    await h.settle();
    expect(toolResult(h)).toBe('confirm: accept');
  });
});
