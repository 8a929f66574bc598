/**
 * Team controls on every platform, through the real SDKs against the fakes
 * and the ready bot as `npm start` builds it from its settings: Ann (or
 * Alice) is allowed, Bob is an admin. A rule is made with Always allow, used
 * unasked, listed and revoked; then a reply crosses the chat's daily budget,
 * pauses before its next model request, Ann's press of `Allow $1.00 more`
 * is refused, Bob's lets the reply go on, and the next message runs nothing.
 * An output token costs a cent (SWITCHBOARD_PRICES), so each request's
 * price is known.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../fakes/slack/index.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startApp } from './discord/app.js';
import { mention } from './discord/helpers.js';
import { startSlackApp } from './slack/app.js';
import { ANN, BOB, createAppWorld } from './telegram/app-harness.js';

const cleanups = useCleanups();
const MODEL = 'claude-sonnet-5-5';
const SETTINGS = {
  SWITCHBOARD_MODEL: MODEL,
  SWITCHBOARD_PRICES: `${MODEL}=0,10000,0,0,0`,
  SWITCHBOARD_BUDGET_CHAT_DAY: '1',
};
const CENT = { input_tokens: 0, output_tokens: 1 };
const WRITE = { name: 'Write', input: { file_path: 'team.txt', content: 'shared' } };

/** The model's side of the story, in order. */
function script(anthropic: FakeAnthropic): void {
  anthropic.enqueue(
    { toolUse: [WRITE], usage: CENT },
    { text: 'Wrote it.', usage: CENT },
    { toolUse: [WRITE], usage: CENT },
    { text: 'Wrote it again.', usage: CENT },
    // $1.50: the chat's $1.00 day is crossed before the next request; the extension makes it $2.00.
    { toolUse: [{ name: 'Glob', input: { pattern: '*' } }], usage: { input_tokens: 0, output_tokens: 150 } },
    // $0.50 more: $2.04 in all, past the extended day.
    { text: 'Looked around.', usage: { input_tokens: 0, output_tokens: 50 } },
  );
}

/** The steps every platform takes, through its own way of posting, pressing and asking. */
interface Platform {
  /** Sends a message from `who`, mentioning the bot where the platform needs it. */
  say(who: 'ann' | 'bob', text: string): Promise<void>;
  /** The newest bot message whose text includes `marker` and that has a button labelled `label`. */
  waitForButton(marker: string, label: string): Promise<{ message: string; payload: string }>;
  /** Presses it as `who`; resolves with the answer only the presser sees. */
  press(who: 'ann' | 'bob', button: { message: string; payload: string }): Promise<string>;
  /** Runs a command as `who`; resolves with its answer. */
  command(who: 'ann' | 'bob', name: string, args: string): Promise<string>;
  /** Every text the bot posted (after edits). */
  texts(): string[];
  anthropic: FakeAnthropic;
}

async function story(p: Platform): Promise<void> {
  script(p.anthropic);
  // A rule: Always allow by the admin; the same call then runs unasked.
  await p.say('ann', 'write the team file');
  const prompt = await p.waitForButton('Write wants', 'Always allow');
  expect(await p.press('ann', prompt)).toBe(say.ruleAdminOnly);
  const stored = await p.press('bob', prompt);
  const id = /rule (r[0-9a-z]{5})/.exec(stored)?.[1] as string;
  expect(stored).toBe(say.ruleStored(id));
  await until(() => p.texts().some((t) => t.includes('Wrote it.')), 'first write');
  const prompts = p.texts().filter((t) => t.includes('Write wants')).length;
  await p.say('ann', 'write it again');
  await until(() => p.texts().some((t) => t.includes('Wrote it again.')), 'second write');
  expect(p.texts().filter((t) => t.includes('Write wants'))).toHaveLength(prompts);
  expect(await p.command('bob', 'rules', '')).toContain(`${id}: Write with exactly`);
  expect(await p.command('ann', 'rules', `revoke ${id}`)).toBe('Only an admin can revoke a rule.');
  expect(await p.command('bob', 'rules', `revoke ${id}`)).toBe(`Revoked rule ${id}: Write asks again.`);

  // A budget: the reply pauses, the admin's press lets it go on.
  await p.say('ann', 'look around');
  const pause = await p.waitForButton('paused before its next model request', 'Allow $1.00 more');
  expect(p.anthropic.requests.length).toBe(5);
  expect(await p.press('ann', pause)).toBe(say.budgetAdminOnly);
  expect(await p.press('bob', pause)).toBe(say.budgetExtendedAnswer('$1.00'));
  await until(() => p.texts().some((t) => t.includes('Looked around.')), 'reply went on');
  expect(JSON.stringify(p.anthropic.requests[5]?.messages)).toContain('tool_result');
  // Over the $2.00 the day now allows: the next message runs nothing.
  await p.say('ann', 'one more');
  await until(() => p.texts().some((t) => t.includes('so nothing was run')), 'capped message');
  expect(p.anthropic.requests.length).toBe(6);
  // The opening message (before the story) cost a little too.
  expect(await p.command('bob', 'budget', '')).toMatch(
    /This chat's daily budget: \$2\.\d\d spent of \$2\.00/,
  );
}

/** Polls real time: these bots run on the system clock against real sockets. */
async function until(predicate: () => boolean, label: string): Promise<void> {
  for (let i = 0; i < 1_500; i++) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${label} never happened`);
}

describe('team controls', () => {
  it('on Telegram', { timeout: 60_000 }, async () => {
    // A group's pace (20 messages a minute) scaled tenfold on both sides: this asserts what is said, not the pace.
    const w = await createAppWorld({}, { scale: 10 });
    cleanups.push(() => w.close());
    await w.start({ ...SETTINGS, SWITCHBOARD_ADMINS: 'telegram:22' });
    const group = -100_700;
    const where = { ann: { chatId: group, user: ANN }, bob: { chatId: group, user: BOB } };
    const answers = (id: string) =>
      w.telegram.callsTo('answerCallbackQuery').find((c) => c.callback_query_id === id)?.text as string;
    await story({
      anthropic: w.anthropic,
      async say(who, text) {
        w.telegram.pushUpdate(messageUpdate(where[who], `@switchboard_bot ${text}`));
      },
      async waitForButton(marker, label) {
        let found: { message: string; payload: string } | undefined;
        await until(() => {
          const m = w.telegram.botMessages(group).findLast((b) => b.text.includes(marker));
          const button = m?.replyMarkup?.inline_keyboard.flat().find((b) => b.text === label);
          if (m && button && 'callback_data' in button)
            found = { message: String(m.messageId), payload: button.callback_data };
          return found !== undefined;
        }, label);
        return found as { message: string; payload: string };
      },
      async press(who, button) {
        const update = callbackUpdate(where[who], Number(button.message), button.payload);
        const id = (update.callback_query as { id: string }).id;
        w.telegram.pushUpdate(update);
        await until(() => answers(id) !== undefined, 'callback answered');
        return answers(id);
      },
      async command(who, name, args) {
        const before = w.telegram.botMessages(group).length;
        w.telegram.pushUpdate(messageUpdate(where[who], `/${name}@switchboard_bot ${args}`.trim()));
        await until(() => w.telegram.botMessages(group).length > before, `/${name}`);
        return w.telegram.botMessages(group).at(-1)?.text as string;
      },
      texts: () => w.telegram.botMessages(group).map((m) => m.text),
    });
  });

  it('on Slack', { timeout: 60_000 }, async () => {
    const anthropic = await startFakeAnthropic();
    const root = await mkdtemp(join(tmpdir(), 'switchboard-team-'));
    cleanups.push(
      () => anthropic.close(),
      () => rm(root, { recursive: true, force: true }),
    );
    const f: FakeSlack = await startFakeSlack();
    cleanups.push(() => f.close());
    const app = await startSlackApp(f, anthropic, root, { ...SETTINGS, SWITCHBOARD_ADMINS: 'slack:U2' });
    cleanups.push(() => app.stop());
    const users = { ann: 'U1', bob: 'U2' };
    const { ts } = await f.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> hello team' });
    // The opening message got the default answer; the story's script starts after it.
    await until(() => anthropic.requests.length === 1, 'opening answered');
    anthropic.requests.splice(0, 1);
    const heard = () => [
      ...f.state.ephemerals.map((e) => e.text),
      ...f.state.responses.map((r) => String(r.body.text)),
    ];
    const newAnswer = async (before: number) => {
      await until(() => heard().length > before, 'answer');
      return heard().at(-1) as string;
    };
    await story({
      anthropic,
      async say(who, text) {
        await f.userMessage({ channel: 'C1', user: users[who], text, threadTs: ts });
      },
      async waitForButton(marker, label) {
        let found: { message: string; payload: string } | undefined;
        await until(() => {
          const m = f.botMessages('C1', ts).findLast((b) => visibleText(b).includes(marker));
          const button = (m?.blocks ?? [])
            .flatMap((b) => b.elements ?? [])
            .find((e) => e.text?.text === label);
          if (m && button) found = { message: m.ts, payload: button.value };
          return found !== undefined;
        }, label);
        return found as { message: string; payload: string };
      },
      async press(who, button) {
        const before = heard().length;
        await f.pressButton({
          user: users[who],
          channel: 'C1',
          messageTs: button.message,
          value: button.payload,
        });
        return newAnswer(before);
      },
      async command(who, name, args) {
        const before = heard().length;
        await f.slashCommand({
          channel: 'C1',
          user: users[who],
          text: `${name} ${args}`.trim(),
          threadTs: ts,
        });
        return newAnswer(before);
      },
      texts: () => f.botTexts('C1', ts),
    });
  });

  it('on Discord', { timeout: 60_000 }, async () => {
    const anthropic = await startFakeAnthropic();
    const root = await mkdtemp(join(tmpdir(), 'switchboard-team-'));
    cleanups.push(
      () => anthropic.close(),
      () => rm(root, { recursive: true, force: true }),
    );
    const f: FakeDiscord = await startFakeDiscord();
    cleanups.push(() => f.close());
    // Discord's pace scaled tenfold on both sides (see SCALED): this asserts what is said, not the pace.
    const app = await startApp(f, anthropic, root, {
      scaled: true,
      env: { ...SETTINGS, SWITCHBOARD_ADMINS: `discord:${f.user('bob').id}` },
    });
    cleanups.push(() => app.stop());
    const users = { ann: f.user('alice'), bob: f.user('bob') };
    const opening = f.userMessage({
      channelId: f.generalId,
      author: users.ann,
      content: `${mention(f)} hello team`,
    });
    const thread = await f.waitFor(() => f.channels.get(opening.id), 'thread');
    await until(() => anthropic.requests.length === 1, 'opening answered');
    anthropic.requests.splice(0, 1);
    const answerOf = async (interaction: { originalId?: string }) => {
      await f.waitFor(() => interaction.originalId, 'interaction answer');
      const id = interaction.originalId as string;
      return f.waitFor(() => f.messages.get(id)?.content || undefined, 'answer text');
    };
    await story({
      anthropic,
      async say(who, text) {
        f.userMessage({ channelId: thread.id, author: users[who], content: text });
      },
      async waitForButton(marker, label) {
        let found: { message: string; payload: string } | undefined;
        await until(() => {
          const m = f.botMessages(thread.id).findLast((b) => b.content.includes(marker));
          const button = m?.components.flatMap((r) => r.components).find((b) => b.label === label);
          if (m && button?.custom_id) found = { message: m.id, payload: button.custom_id };
          return found !== undefined;
        }, label);
        return found as { message: string; payload: string };
      },
      press: (who, button) =>
        answerOf(f.pressButton({ messageId: button.message, user: users[who], customId: button.payload })),
      command: (who, name, args) =>
        answerOf(
          f.slashCommand({
            channelId: thread.id,
            user: users[who],
            name,
            ...(args ? { options: { [name === 'rules' ? 'revoke' : 'set']: args } } : {}),
          }),
        ),
      texts: () => f.botMessages(thread.id).map((m) => m.content),
    });
  });
});
