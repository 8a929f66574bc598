/**
 * Rules as a chat uses them, on the real bot core and session against the
 * fake Messages API: an admin's `Always allow` stores a rule (for Bash after
 * choosing the command prefix), a matching call then runs unasked and its
 * tool line names the rule, `/rules` lists rules and session grants with who
 * made them, `/rules revoke` takes them back, and rules survive a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let harnesses: BotHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.reverse()) await h.close();
  harnesses = [];
});

async function start(options: Parameters<typeof startBotHarness>[0] = {}): Promise<BotHarness> {
  const h = await startBotHarness(options);
  harnesses.push(h);
  return h;
}

/** The newest message starting with `prefix` that still has buttons. */
async function waitForButtons(h: BotHarness, prefix: string, after = 0): Promise<StoredMessage> {
  let found: StoredMessage | undefined;
  await h.until(() => {
    found = h.adapter
      .chatMessages(h.chat)
      .slice(after)
      .findLast((m) => m.text.startsWith(prefix) && m.buttons.length > 0);
    return found !== undefined;
  }, `${prefix} with buttons`);
  return found as StoredMessage;
}

const button = (m: StoredMessage, label: string) =>
  m.buttons.flat().find((b) => b.label === label)?.payload as string;

const WRITE = { file_path: 'note.txt', content: 'hi' };

/** A turn that calls Write with `input`, then says `done`. */
async function writeTurn(h: BotHarness, done: string): Promise<number> {
  const before = h.adapter.chatMessages(h.chat).length;
  h.fakeAnthropic.enqueue({ toolUse: [{ name: 'Write', input: WRITE }] }, { text: done });
  await h.message('write the note');
  return before;
}

/** Texts the status line showed while the replies streamed (every send and edit the adapter got). */
const shownLines = (h: BotHarness) => h.adapter.ops.map((op) => op.text ?? '');

describe('rules', () => {
  it('Always allow by an admin stores a rule; the same call runs unasked and says which rule; /rules lists it and an admin revokes it', async () => {
    const h = await start();
    const before = await writeTurn(h, 'Wrote it.');
    const prompt = await waitForButtons(h, '🔐', before);
    expect(prompt.buttons.flat().map((b) => b.label)).toContain('Always allow');
    expect(await h.press(button(prompt, 'Always allow'))).toEqual([say.ruleAdminOnly]);
    const [answer] = await h.press(button(prompt, 'Always allow'), { user: USERS.admin });
    const id = /rule (r[0-9a-z]{5})/.exec(answer ?? '')?.[1] as string;
    expect(answer).toBe(say.ruleStored(id));
    await h.settle();
    expect(h.adapter.messageText(prompt.id)).toContain(say.alwaysAllowed('Admin', id));

    const listed = await h.ask('rules');
    expect(listed).toContain(`• ${id}: Write with exactly`);
    expect(listed).toContain('by Admin, 2026-01-01');

    const asked = h.texts().filter((t) => t.startsWith('🔐')).length;
    // The same call again; the model's next answer holds, so the tool line stays up to be seen.
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Write', input: WRITE }] },
      { text: ['x'], stallAfterChunks: 0 },
    );
    await h.message('write the note');
    const line = `Write: note.txt${say.ruleAllowedNote(id)}`;
    await h.until(() => shownLines(h).some((t) => t.includes(line)), 'tool line naming the rule');
    expect(h.texts().filter((t) => t.startsWith('🔐'))).toHaveLength(asked);

    // Rules are revoked at once, even while a reply runs.
    expect(await h.ask('rules', `revoke ${id}`)).toBe('Only an admin can revoke a rule.');
    expect(await h.ask('rules', `revoke ${id}`, { user: USERS.admin })).toBe(
      `Revoked rule ${id}: Write asks again.`,
    );
    expect(await h.ask('rules')).toContain('No rules or session grants in this chat');
    await h.command('stop');
    await h.settle();
  });

  it('Always allow on a command asks which prefix; a prefix rule covers longer commands but never a chained one, and survives a restart', async () => {
    const h = await start();
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'echo approved' } }] },
      { text: 'Echoed.' },
    );
    await h.message('echo something');
    const prompt = await waitForButtons(h, '🔐');
    expect(await h.press(button(prompt, 'Always allow'), { user: USERS.admin })).toEqual([
      say.rulePrefixChoose,
    ]);
    const choice = await waitForButtons(h, '📌');
    expect(choice.text).toBe(say.rulePrefixAsk);
    expect(choice.buttons.flat().map((b) => b.label)).toEqual(['echo', 'echo approved', 'Cancel']);
    for (const b of choice.buttons.flat()) expect(Buffer.byteLength(b.payload)).toBeLessThanOrEqual(64);
    expect(await h.press(button(choice, 'echo'), { user: USERS.bob })).toEqual([say.ruleAdminOnly]);
    const [answer] = await h.press(button(choice, 'echo'), { user: USERS.admin, messageId: choice.id });
    const id = /rule (r[0-9a-z]{5})/.exec(answer ?? '')?.[1] as string;
    await h.settle();
    expect(h.adapter.messageText(choice.id)).toBe(say.rulePrefixStored(id, '`echo`'));
    expect(h.texts().join('\n')).toContain('Echoed.');

    await h.stop();
    const again = await h.restart();
    harnesses.push(again);
    const asked = again.texts().filter((t) => t.startsWith('🔐')).length;
    again.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'echo  another   thing' } }] },
      { text: 'Echoed again.' },
    );
    await again.message('echo more');
    await again.settle();
    expect(again.texts().filter((t) => t.startsWith('🔐'))).toHaveLength(asked);
    expect(again.texts().join('\n')).toContain('Echoed again.');
    // Chaining a second command onto the prefix is asked about.
    again.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'echo hi; rm -rf data' } }] },
      { text: 'Stopped.' },
    );
    await again.message('echo and clean');
    const chained = await waitForButtons(again, '🔐');
    expect(chained.text).toContain('rm -rf data');
    expect(await again.press(button(chained, 'Deny'))).toEqual(['Denied.']);
    await again.settle();
  });

  it('/rules lists session grants with who made them; the owner revokes one and the call asks again', async () => {
    const h = await start();
    expect(await h.ask('rules')).toContain('No rules or session grants in this chat');
    await writeTurn(h, 'Wrote it.');
    const prompt = await waitForButtons(h, '🔐');
    await h.press(button(prompt, 'Allow for this session'));
    await h.settle();
    const listed = await h.ask('rules');
    expect(listed).toContain('Grants of this session (Allow for this session):');
    expect(listed).toMatch(/• g1: `Write:[^`]*note\.txt`, by Alice, 2026-01-01 \d\d:\d\d UTC/);
    expect(await h.ask('rules', 'revoke g1', { user: USERS.bob })).toBe(
      "Only an admin or the session's owner can revoke its grants.",
    );
    expect(await h.ask('rules', 'revoke g1')).toMatch(/^Revoked grant g1: `Write:.*note\.txt` asks again\.$/);
    expect(await h.ask('rules', 'revoke g1')).toBe('No grant g1 in this session. /rules lists them.');
    const before = await writeTurn(h, 'Asked again.');
    const next = await waitForButtons(h, '🔐', before);
    await h.press(button(next, 'Allow'));
    await h.settle();
    expect(await h.ask('rules', 'forget it')).toBe('Usage: /rules, or /rules revoke <id>');
  });
});
