/**
 * `/switchboard <command> <args>`: acknowledged at once, routed to the right
 * thread, answered there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import type { CommandEvent } from '../../../src/bot/adapter-contract.js';
import { type FakeSlack, startFakeSlack } from '../../fakes/slack/index.js';
import { type EventLog, startAdapter, stopAdapter } from './helpers.js';

let fake: FakeSlack;
let adapter: SlackAdapter | undefined;
let log: EventLog;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  ({ adapter, log } = await startAdapter(fake));
});

afterEach(async () => {
  await stopAdapter(fake, adapter);
  adapter = undefined;
  await fake.close();
});

describe('Slack slash commands', () => {
  it('goes to the thread Slack names, acked within 3 s, answered ephemerally there', async () => {
    const { ack } = await fake.slashCommand({
      channel: 'C1',
      user: 'U1',
      text: 'compact keep the names',
      threadTs: '1.5',
    });
    expect(ack?.latencyMs).toBeLessThan(3000);
    const cmd = await log.next<CommandEvent>((e) => e.type === 'command');
    expect(cmd).toMatchObject({
      chat: 'slack:C1:1.5',
      name: 'compact',
      args: 'keep the names',
      user: { id: 'U1', name: 'Alice' },
    });
    expect(cmd.deliveryId).toBeTruthy();
    await cmd.respond?.({ text: 'Compacted.', ephemeral: true });
    expect(fake.state.ephemerals).toEqual([
      { channel: 'C1', user: 'U1', threadTs: '1.5', text: 'Compacted.' },
    ]);
  });

  it("else goes to the person's own session thread and says which", async () => {
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> hi' });
    await log.next();
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'rename  my project ' });
    const cmd = await log.next<CommandEvent>((e) => e.type === 'command');
    expect(cmd).toMatchObject({ chat: `slack:C1:${ts}`, name: 'rename', args: 'my project' });
    // The user is told at once, in the channel, which thread the command went to.
    const notice = fake.state.responses.at(-1)?.body as { text: string; response_type: string };
    expect(notice.response_type).toBe('ephemeral');
    expect(notice.text).toMatch(
      /^In <http:\/\/127\.0\.0\.1:\d+\/archives\/C1\/p\d+\|your thread>: running \/switchboard rename\./,
    );
    await cmd.respond?.({ text: 'Renamed to my project.', ephemeral: true });
    expect(fake.state.ephemerals.at(-1)?.text).toMatch(/^In <.*\|your thread>: Renamed to my project\.$/);
    expect(fake.state.ephemerals.at(-1)?.threadTs).toBe(ts);
  });

  it("goes to the person's own thread, never to a thread someone else used since", async () => {
    const own = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> mine' });
    await log.next();
    const other = await fake.userMessage({ channel: 'C1', user: 'U2', text: '<@UBOT> theirs' });
    await log.next((e) => e.type === 'message' && e.text.includes('theirs'));
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'stop' });
    const cmd = await log.next<CommandEvent>((e) => e.type === 'command');
    expect(cmd.chat).toBe(`slack:C1:${own.ts}`);
    expect(cmd.chat).not.toBe(`slack:C1:${other.ts}`);
    // Someone with no thread of their own in the channel is told so, privately; U1's and U2's stay theirs.
    const before = log.events.length;
    await fake.slashCommand({ channel: 'C1', user: 'U3', text: 'status' });
    await fake.until(() => fake.state.responses.length > 0);
    expect(log.events).toHaveLength(before);
  });

  it('with no session of theirs in the channel, answers the person only and posts nothing there', async () => {
    await fake.slashCommand({ channel: 'C2', user: 'U1', text: 'status' });
    await fake.until(() => fake.state.responses.length > 0);
    const answer = fake.state.responses.at(-1)?.body as { text: string; response_type: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toMatch(
      /^You have no session with me in this channel yet, so there is nothing for \/switchboard status to act on\. Mention <@UBOT> in a message/,
    );
    await fake.slashCommand({ channel: 'C2', user: 'U1', text: 'help' });
    await fake.until(() => fake.state.responses.length > 1);
    expect(String(fake.state.responses.at(-1)?.body.text)).toMatch(/The commands: new, compact, .*help\.$/);
    expect(fake.botMessages('C2')).toEqual([]);
    expect(log.events.filter((e) => e.type === 'command')).toEqual([]);
  });

  it('an empty command is help; an unknown word is answered with the usage, not handed on', async () => {
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: '', threadTs: '1.5' });
    expect((await log.next<CommandEvent>()).name).toBe('help');
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'frobnicate now', threadTs: '1.5' });
    await fake.until(() => fake.state.responses.length > 0);
    expect(String(fake.state.responses[0]?.body.text)).toMatch(
      /^Unknown command "frobnicate"\. Use \/switchboard/,
    );
    expect(log.events).toHaveLength(1);
  });

  it('honours a configured command name', async () => {
    await stopAdapter(fake, adapter);
    ({ adapter, log } = await startAdapter(fake, { commandName: 'sb' }));
    await fake.slashCommand({ channel: 'C1', user: 'U1', text: 'new', threadTs: '1.5', command: '/sb' });
    expect((await log.next<CommandEvent>()).name).toBe('new');
  });
});
