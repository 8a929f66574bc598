/**
 * The bot core's side of SendFile with an adapter that uploads nothing (the
 * recording adapter has no sendFile): the agent is told the chat cannot take
 * files, even when the adapter declares an upload limit it has no way to
 * honour, and the chat shows no error of its own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';
import { lastToolResult } from '../helpers/files-out.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('tells the model a chat without uploads cannot take files, and the reply goes on', async () => {
  h = await startBotHarness({ capabilities: { maxUploadBytes: 1024 * 1024 } });
  await mkdir(h.dirs.workspace, { recursive: true });
  await writeFile(join(h.dirs.workspace, 'report.txt'), 'numbers\n');
  h.fakeAnthropic.enqueue(
    { text: 'Sending it.', toolUse: [{ name: 'SendFile', input: { file_path: 'report.txt' } }] },
    { text: 'I could not send it; here are the numbers instead.' },
  );
  await h.message('send me the report');
  await h.settle();
  const result = lastToolResult(h.fakeAnthropic.requests[1]);
  expect(result).toMatchObject({
    is_error: true,
    content: expect.stringContaining('This chat cannot take files'),
  });
  expect(h.texts().join('\n')).toContain('here are the numbers instead.');
  expect(h.texts().join('\n')).not.toMatch(/error|failed/i);
});
