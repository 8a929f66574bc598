/**
 * Files out in the terminal chat: the console adapter under the real bot
 * core and session, the model served by the fake Messages API, the session
 * in `plan` mode. SendFile is a read, so it runs there, and the terminal
 * prints where the file is instead of uploading it; a Write in the same
 * reply is refused, as plan mode refuses every change.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Bot } from '../../../src/bot/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { pngBase64 } from '../../fakes/images.js';
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

it('prints the path and caption of a file the agent sends in plan mode, where a Write is refused', async () => {
  anthropic = await startFakeAnthropic();
  root = await realpath(await mkdtemp(join(tmpdir(), 'sb-console-files-')));
  const workspace = join(root, 'ws');
  await mkdir(join(workspace, 'charts'), { recursive: true });
  await writeFile(join(workspace, 'charts', 'q3.png'), Buffer.from(pngBase64(200, 100), 'base64'));
  const terminal = await startConsoleBot({ anthropic, root, workspace, permissionMode: 'plan' });
  bot = terminal.bot;
  const { input, until } = terminal;
  anthropic.enqueue(
    {
      text: ['Here it is.'],
      toolUse: [
        {
          name: 'SendFile',
          input: { file_path: 'charts/q3.png', caption: 'Q3 revenue\nby \u001b[31mregion' },
        },
        { name: 'Write', input: { file_path: 'notes.md', content: 'x' } },
      ],
    },
    { text: ['That is the chart.'] },
  );
  input.write('show me the chart\n');
  await until(/That is the chart\./);
  const path = join(workspace, 'charts', 'q3.png');
  // The caption's lines are indented under the path; its escape sequence is shown, not obeyed.
  expect(terminal.screen()).toContain(`📎 ${path} (69 bytes, image/png)\n  Q3 revenue\n  by ⟨ESC⟩[31mregion`);
  // The file line comes after the text written before it and before the text after it.
  expect(terminal.screen().indexOf('Here it is.')).toBeLessThan(terminal.screen().indexOf('📎'));
  expect(terminal.screen().indexOf('📎')).toBeLessThan(terminal.screen().indexOf('That is the chart.'));
  // biome-ignore lint/suspicious/noExplicitAny: recorded request bodies.
  const results = anthropic.requests[1].messages.at(-1).content.filter((b: any) => b.type === 'tool_result');
  expect(results[0].content).toMatch(/^Sent charts\/q3\.png .*its path was shown in the terminal\.$/);
  expect(results[0].is_error).toBeUndefined();
  expect(results[1]).toMatchObject({
    is_error: true,
    content: expect.stringContaining('not allowed in plan mode'),
  });
});
