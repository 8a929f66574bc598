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
import { closingMcpWorlds, notesEntry, toolChanges } from './helpers.js';

const startWorld = closingMcpWorlds();

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
const unmarked = (value: any): any =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v)));

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

    const bodies = fake.requests.map(unmarked);
    expect(fake.log.every((e) => e.finished && e.usage !== undefined)).toBe(true);
    expect(fake.log.flatMap((e) => e.inputTransformations ?? [])).toEqual([]);
    for (let i = 1; i < bodies.length; i++) {
      expect(bodies[i].system, `system of request ${i}`).toEqual(bodies[0].system);
      expect(bodies[i].tools, `tools of request ${i}`).toEqual(bodies[0].tools);
      expect(bodies[i].messages.slice(0, bodies[i - 1].messages.length), `messages of request ${i}`).toEqual(
        bodies[i - 1].messages,
      );
    }
    // The server's tools left and came back in system messages at the end, never by changing `tools`.
    const changes = toolChanges(bodies.at(-1));
    expect(changes.some((c) => c.startsWith('-mcp__notes__'))).toBe(true);
    expect(changes.some((c) => c.startsWith('+mcp__notes__'))).toBe(true);
    // Every thinking block of every reply before the last goes back: 1 + 1 + 2 + 3 + 9.
    expect(JSON.stringify(bodies.at(-1).messages).match(/"type":"thinking"/g)).toHaveLength(
      1 + 1 + 2 + 3 + 9,
    );
    // Each of the last ten turns reads everything the turn before it read and wrote.
    for (let i = beforeTen + 1; i < fake.log.length; i++) {
      const [prev, cur] = [fake.log[i - 1]?.usage, fake.log[i]?.usage] as Array<Record<string, number>>;
      expect(cur?.cache_read_input_tokens, `cache read of request ${i}`).toBe(
        (prev?.cache_read_input_tokens ?? 0) + (prev?.cache_creation_input_tokens ?? 0),
      );
    }
  });
});
