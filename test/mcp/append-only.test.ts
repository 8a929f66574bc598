/**
 * A long conversation on Sonnet 5.5 with thinking, through the bot: an MCP
 * server that is connected, drops and comes back mid-conversation, a reply
 * continued twice after `max_tokens`, then ten more turns. Every request
 * begins with the one before it (the tools sent stay the conversation's;
 * the server's tools leaving and returning are said in system messages at
 * the end), none is refused, no thinking block is dropped by the fake's
 * binding checks, and each of the last turns reads everything the one
 * before it cached.
 */
import { describe, expect, it } from 'vitest';
import { expectAppendOnly, expectCacheReadsKept } from '../helpers/append-only.js';
import { closingMcpWorlds, notesEntry, toolChanges } from './helpers.js';

const startWorld = closingMcpWorlds();

describe('an append-only conversation with an MCP server that comes and goes', () => {
  it('keeps every request a continuation of the last: no 400, no lost thinking, cache reads unchanged', async () => {
    const world = await startWorld({ notes: notesEntry });
    const { h, mcp, mcpClock } = world;
    const fake = h.fakeAnthropic;
    const notes = mcp.connection('notes');
    const turn = async (text: string) => {
      await h.message(text);
      await h.settle();
    };
    fake.enqueue({ thinking: ['connected'], text: 'Hello.' });
    await turn('hello');

    process.kill(notes?.pid as number, 'SIGKILL');
    await h.until(() => notes?.state === 'down', 'server down');
    fake.enqueue({ thinking: ['the notes are gone'], text: 'Working without notes.' });
    await turn('while it is down');

    await mcpClock.advance(1000);
    await h.until(() => notes?.state === 'connected', 'server back');
    fake.enqueue(
      { thinking: ['look it up'], toolUse: [{ name: 'mcp__notes__lookup', input: { key: 'k2' } }] },
      { thinking: ['found'], text: 'Found it.' },
    );
    await turn('look up k2');

    fake.enqueue(
      { thinking: ['long answer'], text: 'Part one, ', stopReason: 'max_tokens' },
      { thinking: ['go on'], text: 'part two, ', stopReason: 'max_tokens' },
      { thinking: ['finish'], text: 'part three.' },
    );
    await turn('tell me everything');
    const beforeTen = fake.log.length;
    for (let n = 1; n <= 10; n++) {
      fake.enqueue({ thinking: [`turn ${n}`], text: `Answer ${n}.` });
      await turn(`question ${n}`);
    }

    const bodies = expectAppendOnly(fake);
    // The server's tools left and came back in system messages at the end, never by changing `tools`.
    const changes = toolChanges(bodies.at(-1));
    expect(changes.some((c) => c.startsWith('-mcp__notes__'))).toBe(true);
    expect(changes.some((c) => c.startsWith('+mcp__notes__'))).toBe(true);
    // Every thinking block of every reply before the last goes back: 1 + 1 + 2 + 3 + 9.
    expect(JSON.stringify(bodies.at(-1).messages).match(/"type":"thinking"/g)).toHaveLength(
      1 + 1 + 2 + 3 + 9,
    );
    // Each of the last ten turns reads everything the turn before it read and wrote.
    expectCacheReadsKept(fake, beforeTen + 1);
  });
});
