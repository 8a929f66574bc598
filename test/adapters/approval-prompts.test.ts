/**
 * Approval prompts a person can judge, on every platform, through the real
 * SDKs against the fakes: Write shows the new content, Edit the diff lines,
 * and a long Bash command is shown whole (the part that does not fit the
 * prompt goes in the message the prompt replies to). The outcome edit keeps
 * what the prompt showed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../fakes/slack/index.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startScaledApp } from './discord/app.js';
import { mention } from './discord/helpers.js';
import { startSlackApp } from './slack/app.js';
import { ANN, type AppWorld, createAppWorld } from './telegram/app-harness.js';

const WRITE = {
  name: 'Write',
  input: { file_path: 'notes/plan.md', content: '# Plan\nconst answer = 42;\nship it on Friday\n' },
};
const EDIT = {
  name: 'Edit',
  input: { file_path: 'notes/plan.md', old_string: 'ship it on Friday', new_string: 'ship it on Monday' },
};
const LONG = Array.from({ length: 110 }, (_, i) => `echo "step ${i} of the long command"`).join('\n');
const BASH = { name: 'Bash', input: { command: `${LONG}\ncat ../.env`, description: 'Print the steps' } };

/** The model asks for each tool in turn; after each denial it says so. */
function script(anthropic: FakeAnthropic) {
  for (const call of [WRITE, EDIT, BASH])
    anthropic.enqueue({ toolUse: [call] }, { text: `No ${call.name}.` });
}

/** Everything the three prompts must have shown. */
function expectJudgeable(prompts: { write: string; edit: string; bash: string }, all: string) {
  expect(prompts.write).toContain('notes/plan.md');
  expect(prompts.write).toContain('const answer = 42;');
  expect(prompts.write).toContain('ship it on Friday');
  expect(prompts.edit).toContain('- ship it on Friday');
  expect(prompts.edit).toContain('+ ship it on Monday');
  expect(prompts.bash).toContain('Print the steps');
  expect(prompts.bash).toContain('The whole command is in the message above.');
  // Every line of the command is on screen, the dangerous last one included.
  for (let i = 0; i < 110; i++) expect(all).toContain(`step ${i} of the long command`);
  expect(all).toContain('cat ../.env');
}

/** What each test started, closed after it in reverse order. */
const cleanups = useCleanups();

/** The fake Messages API with the script, and a data folder, for the Slack and Discord apps. */
async function modelAndFolder(): Promise<{ anthropic: FakeAnthropic; root: string }> {
  const anthropic = await startFakeAnthropic();
  const root = await mkdtemp(join(tmpdir(), 'switchboard-approvals-'));
  cleanups.push(
    () => anthropic.close(),
    () => rm(root, { recursive: true, force: true }),
  );
  script(anthropic);
  return { anthropic, root };
}

describe('approval prompts on Telegram', () => {
  it('show the content, the diff and the whole command; the outcome keeps them', async () => {
    // Classic messages (4,096 characters), where a long command cannot fit one prompt.
    const w: AppWorld = await createAppWorld({ rich: false });
    cleanups.push(() => w.close());
    await w.start();
    script(w.anthropic);
    const dm = { chatId: 11, user: ANN };
    const seen: Record<string, string> = {};
    for (const [i, key] of (['write', 'edit', 'bash'] as const).entries()) {
      w.telegram.pushUpdate(messageUpdate(dm, `step ${i}`));
      const prompt = () =>
        w.telegram
          .botMessages(11)
          .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => b.text === 'Deny'));
      await w.telegram.waitFor(() => prompt() !== undefined, 15_000);
      const shown = prompt()!;
      seen[key] = shown.text;
      if (key === 'bash') {
        // The prompt replies to the message holding the whole command.
        const above = w.telegram.botMessages(11).find((m) => m.messageId === shown.replyTo);
        expect(above?.text).toContain('The whole command');
      }
      const deny = shown.replyMarkup!.inline_keyboard.flat().find((b) => b.text === 'Deny') as {
        callback_data: string;
      };
      w.telegram.pushUpdate(callbackUpdate(dm, shown.messageId, deny.callback_data));
      const answer = `No ${shown.text.includes('Write wants') ? 'Write' : shown.text.includes('Edit wants') ? 'Edit' : 'Bash'}.`;
      await w.telegram.waitFor(() => w.telegram.botMessages(11).some((m) => m.text === answer), 15_000);
      const settled = w.telegram.botMessages(11).find((m) => m.messageId === shown.messageId)!;
      const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
      expect(flat(settled.text)).toBe(`${flat(seen[key] ?? '')} 🚫 Denied by Ann`);
    }
    const all = w.telegram
      .botMessages(11)
      .map((m) => m.text)
      .join('\n');
    expectJudgeable({ write: seen.write!, edit: seen.edit!, bash: seen.bash! }, all);
  });
});

describe('approval prompts on Slack', () => {
  it('show the content, the diff and the whole command; the outcome keeps them', async () => {
    const { anthropic, root } = await modelAndFolder();
    const f: FakeSlack = await startFakeSlack();
    cleanups.push(() => f.close());
    const app = await startSlackApp(f, anthropic, root);
    cleanups.push(() => app.stop());
    const { ts } = await f.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> step 0' });
    const seen: Record<string, string> = {};
    for (const [i, key] of (['write', 'edit', 'bash'] as const).entries()) {
      if (i > 0) await f.userMessage({ channel: 'C1', user: 'U1', text: `step ${i}`, threadTs: ts });
      const withButtons = () => f.botMessages('C1', ts).find((m) => visibleText(m).includes('[Deny]'));
      await f.until(() => withButtons() !== undefined, 15_000, 'approval prompt');
      const prompt = withButtons()!;
      seen[key] = visibleText(prompt);
      const deny = (prompt.blocks ?? []).flatMap((b) => b.elements ?? []).find((e) => e.text.text === 'Deny');
      await f.pressButton({ user: 'U1', channel: 'C1', messageTs: prompt.ts, value: deny.value });
      await f.until(() => !visibleText(prompt).includes('[Deny]'), 15_000, 'outcome');
      const shownWithoutButtons = seen[key].replace(/\n\[Allow\].*$/s, '');
      expect(visibleText(prompt)).toContain(shownWithoutButtons.split('\n').slice(0, 3).join('\n'));
      expect(visibleText(prompt)).toMatch(/\n🚫 Denied by \S+$/);
    }
    const all = f.botTexts('C1', ts).join('\n');
    expectJudgeable({ write: seen.write!, edit: seen.edit!, bash: seen.bash! }, all);
  });
});

describe('approval prompts on Discord', () => {
  it('show the content, the diff and the whole command; the outcome keeps them', async () => {
    const { anthropic, root } = await modelAndFolder();
    const f: FakeDiscord = await startFakeDiscord();
    cleanups.push(() => f.close());
    const app = await startScaledApp(f, anthropic, root);
    cleanups.push(() => app.stop());
    const opening = f.userMessage({
      channelId: f.generalId,
      author: f.user('alice'),
      content: `${mention(f)} step 0`,
    });
    const thread = await f.waitFor(() => f.channels.get(opening.id), 'thread');
    const seen: Record<string, string> = {};
    for (const [i, key] of (['write', 'edit', 'bash'] as const).entries()) {
      if (i > 0) f.userMessage({ channelId: thread.id, author: f.user('alice'), content: `step ${i}` });
      const prompt = await f.waitFor(
        () =>
          f
            .botMessages(thread.id)
            .find((m) => m.components.some((r) => r.components.some((b) => b.label === 'Deny'))),
        'approval prompt',
      );
      seen[key] = prompt.content;
      if (key === 'bash') {
        const above = f.messages.get(prompt.message_reference?.message_id ?? '');
        expect(above?.content).toContain('The whole command');
      }
      const deny = prompt.components[0]!.components.find((b) => b.label === 'Deny')!.custom_id!;
      f.pressButton({ messageId: prompt.id, user: f.user('alice'), customId: deny });
      await f.waitFor(() => prompt.components.length === 0 || undefined, 'outcome');
      await f.waitFor(() => prompt.content.includes('Denied by Alice') || undefined, 'outcome text');
      expect(prompt.content).toBe(`${seen[key]}\n\n🚫 Denied by Alice`);
    }
    const all = f
      .botMessages(thread.id)
      .map((m) => m.content)
      .join('\n');
    expectJudgeable({ write: seen.write!, edit: seen.edit!, bash: seen.bash! }, all);
  });
});
