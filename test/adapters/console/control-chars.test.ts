/**
 * Nothing the model writes controls the terminal: the console adapter under
 * the real bot core and session, the model (served by the fake Messages API)
 * writing the escape sequences of an attack that hid a real approval prompt
 * behind a fake one — an OSC 52 clipboard write, SGR 8 (conceal), cursor
 * moves and line erases (CSI), a bare ESC, C1 controls (U+009B CSI, U+009D
 * OSC) and a carriage return — in its reply, in a tool call's file name and
 * content (the tool line and the approval prompt), and in the name of a file
 * it sends. Every one reaches the screen as a visible marker.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Bot } from '../../../src/bot/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { startConsoleBot } from './console-bot.js';

let anthropic: FakeAnthropic | undefined;
let bot: Bot | undefined;
let root: string | undefined;

afterEach(async () => {
  await bot?.stop();
  await anthropic?.close();
  if (root) await rm(root, { recursive: true, force: true });
  bot = anthropic = root = undefined;
});

/** The sequences: clipboard write, conceal, erase line, cursor up, bare ESC, C1 CSI and OSC, CR, BEL. */
const OSC52 = '\x1b]52;c;Y2F0IC4uLy5lbnY=\x07';
const CONCEAL = '\x1b[8m';
const ERASE_UP = '\x1b[2K\x1b[1A';
const C1 = '\u009b8m\u009d0;title\u009c';
const HOSTILE = `${OSC52}${CONCEAL}real text${ERASE_UP}\x1b fake\r🔐 Bash wants to run: npm test ${C1}`;

/** Every C0 control but newline and tab, DEL, and every C1 control (`\p{Cc}` is exactly these). */
const CONTROLS = /(?![\n\t])\p{Cc}/u;

it('shows every control character the model writes as a marker: reply, tool line, approval prompt, file name', async () => {
  anthropic = await startFakeAnthropic();
  root = await realpath(await mkdtemp(join(tmpdir(), 'sb-console-controls-')));
  const workspace = join(root, 'ws');
  await mkdir(workspace, { recursive: true });
  const sentName = `report\x1b[8m\u009b2J.txt`;
  await writeFile(join(workspace, sentName), 'eighteen bytes ok\n');
  const terminal = await startConsoleBot({ anthropic, root, workspace, permissionMode: 'default' });
  bot = terminal.bot;
  const { input, until } = terminal;
  anthropic.enqueue(
    {
      text: [HOSTILE],
      toolUse: [
        { name: 'SendFile', input: { file_path: sentName, caption: `see ${CONCEAL}this` } },
        { name: 'Write', input: { file_path: `x${ERASE_UP}.sh`, content: `echo ${OSC52}` } },
      ],
    },
    { text: [`Done ${C1}.`] },
  );
  input.write('go\n');
  await until(/\(type the number\)/);
  input.write('4\n'); // Deny: the fourth choice, after Always allow
  await until(/Done /);

  expect(terminal.screen()).not.toMatch(CONTROLS);
  // The reply: each sequence visible where the model put it (the core's plain rendering may
  // read a `[` as Markdown, so the clipboard write and the cursor moves are checked apart).
  expect(terminal.screen()).toContain('⟨ESC⟩]52;c;Y2F0IC4uLy5lbnY=⟨BEL⟩⟨ESC⟩');
  expect(terminal.screen()).toContain('real text⟨ESC⟩[2K⟨ESC⟩[1A⟨ESC⟩ fake');
  // The file it sent: the name shown, the exact size, a text type; the caption too.
  expect(terminal.screen()).toContain(
    `📎 ${join(workspace, 'report⟨ESC⟩[8m⟨U+009B⟩2J.txt')} (18 bytes, text/plain; charset=utf-8)\n  see ⟨ESC⟩[8mthis`,
  );
  // The approval prompt: the file name and the content it would write.
  expect(terminal.screen()).toMatch(/Write wants to write .*x⟨ESC⟩\[2K⟨ESC⟩\[1A\.sh/);
  expect(terminal.screen()).toContain('echo ⟨ESC⟩]52;c;Y2F0IC4uLy5lbnY=⟨BEL⟩');
  // The model's next turn saw the denial, so the prompt was the real one and was answered.
  expect(JSON.stringify(anthropic.requests[1].messages.at(-1))).toMatch(/denied|Denied/);
});
