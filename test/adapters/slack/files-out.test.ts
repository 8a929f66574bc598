/**
 * Files out, end to end on Slack: the model (the fake Messages API) calls
 * SendFile, the ready bot uploads through the real @slack/web-api client
 * (files.getUploadURLExternal, the bytes to the upload URL,
 * files.completeUploadExternal) to the fake Slack, and the test reads the
 * thread as a person sees it. Slack's real paces.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { pngBase64 } from '../../fakes/images.js';
import {
  type FakeSlack,
  type FakeSlackLimits,
  startFakeSlack,
  visibleText,
} from '../../fakes/slack/index.js';
import { lastToolResult, putWorkspaceFile } from '../../helpers/files-out.js';
import { startSlackApp } from './app.js';

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

async function start(limits: Partial<FakeSlackLimits> = {}): Promise<void> {
  fake = await startFakeSlack({ limits });
  fake.state.users.set('U1', 'Alice');
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-files-'));
  app = await startSlackApp(fake, anthropic, root);
}

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

const putFile = (path: string, data: string | Buffer) =>
  putWorkspaceFile(join(root, 'workspace'), path, data);

const thread = (ts: string) => fake.botMessages('C1', ts);
const shows = (ts: string, text: string) => () =>
  thread(ts).some((m) => m.streamState !== 'streaming' && visibleText(m) === text);
const toolResult = (index: number) => lastToolResult(anthropic.requests[index]);

describe('Slack: files out', () => {
  it('shares a chart in the thread through the upload flow, inline as an image, between the texts around it', async () => {
    await start();
    const png = Buffer.from(pngBase64(300, 200), 'base64');
    await putFile('charts/q3.png', png);
    anthropic.enqueue(
      {
        text: ['Here is the Q3 chart:'],
        toolUse: [{ name: 'SendFile', input: { file_path: 'charts/q3.png', caption: 'Q3 <!channel> & co' } }],
      },
      { text: ['Revenue grew 12%.'] },
    );
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> chart please' });
    await fake.until(shows(ts, 'Revenue grew 12%.'), 15_000, 'the text after the file');
    const seen = thread(ts).map((m) => [m.files?.[0]?.mimetype ?? 'text', visibleText(m)]);
    expect(seen).toEqual([
      ['text', 'Here is the Q3 chart:'],
      // The caption cannot mention the channel: Slack reads the escaped text literally.
      ['image/png', 'Q3 &lt;!channel&gt; &amp; co'],
      ['text', 'Revenue grew 12%.'],
    ]);
    const shared = thread(ts)[1]!;
    expect(shared.threadTs).toBe(ts);
    expect(shared.files?.[0]?.data.equals(png)).toBe(true);
    expect(shared.files?.[0]?.name).toBe('q3.png');
    expect(fake.callsOf('files.getUploadURLExternal')).toHaveLength(1);
    expect(fake.callsOf('files.upload')).toHaveLength(0);
    expect(toolResult(1).content).toMatch(/^Sent charts\/q3\.png .*sent as an image/);
  });

  it('reports a file the workspace refuses as too large to the model, and shares nothing', async () => {
    await start({ maxUploadBytes: 4096 });
    await putFile('report.csv', 'a,b\n'.repeat(2000));
    anthropic.enqueue(
      { toolUse: [{ name: 'SendFile', input: { file_path: 'report.csv' } }] },
      { text: ['It was too large.'] },
    );
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> the report' });
    await fake.until(shows(ts, 'It was too large.'), 15_000, 'the closing text');
    const result = toolResult(1);
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/refused report\.csv as too large.*file_upload_size_restricted/);
    expect(fake.callsOf('files.getUploadURLExternal').map((c) => c.error)).toEqual([
      'file_upload_size_restricted',
    ]);
    expect(fake.callsOf('files.completeUploadExternal')).toHaveLength(0);
    expect(thread(ts).filter((m) => m.files)).toEqual([]);
  });
});
