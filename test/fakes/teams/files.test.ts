/**
 * Files through the fake (Teams' "Send and receive files using bot"):
 * downloads behind pre-authorised URLs, inline images behind the bot's
 * token, file consent cards in personal chats only, the consent answer's
 * upload session taking the bytes with a Content-Range.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { type Activity, type FakeTeams, startFakeTeams } from './index.js';

const cleanups = useCleanups();

async function start(): Promise<{ teams: FakeTeams; token: string; got: Activity[] }> {
  const teams = await startFakeTeams();
  cleanups.push(() => teams.close());
  const got: Activity[] = [];
  const bot = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Activity);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":200}');
    });
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => bot.close(resolve)));
  teams.setBotEndpoint(`http://127.0.0.1:${(bot.address() as AddressInfo).port}/api/messages`);
  const access_token = await teams.accessToken();
  return { teams, token: access_token, got };
}

describe('fake Teams: files', () => {
  it('serves a received file at its pre-authorised URL and an inline image only with the bot token', async () => {
    const { teams, token } = await start();
    const file = teams.attachFile('notes.txt', Buffer.from('hello'));
    expect(file).toMatchObject({
      contentType: 'application/vnd.microsoft.teams.file.download.info',
      name: 'notes.txt',
      content: { fileType: 'txt' },
    });
    const url = (file.content as { downloadUrl: string }).downloadUrl;
    expect(await (await fetch(url)).text()).toBe('hello');
    const image = teams.attachImage(Buffer.from([1, 2, 3]));
    expect((await fetch(image.contentUrl as string)).status).toBe(401);
    const withToken = await fetch(image.contentUrl as string, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await withToken.arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
  });

  it('takes a consent card in a personal chat, opens an upload on accept and keeps the uploaded bytes', async () => {
    const { teams, token, got } = await start();
    const chat = teams.personalChat('Ada');
    const card = {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.teams.card.file.consent',
          name: 'report.pdf',
          content: {
            description: 'report',
            fileSizeInBytes: 4,
            acceptContext: { k: 1 },
            declineContext: { k: 1 },
          },
        },
      ],
    };
    const sent = await fetch(
      `${teams.serviceUrl}v3/conversations/${encodeURIComponent(chat.id)}/activities`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(card),
      },
    );
    const { id } = (await sent.json()) as { id: string };
    const { upload } = await teams.fileConsent(chat, id, 'accept');
    const invoke = got[0] as Activity;
    expect(invoke).toMatchObject({
      type: 'invoke',
      name: 'fileConsent/invoke',
      replyToId: id,
      value: { action: 'accept', context: { k: 1 } },
    });
    const uploadUrl = (invoke.value as { uploadInfo: { uploadUrl: string } }).uploadInfo.uploadUrl;
    expect((await fetch(uploadUrl, { method: 'PUT', body: Buffer.from('%PDF') })).status).toBe(400);
    const put = await fetch(uploadUrl, {
      method: 'PUT',
      body: Buffer.from('%PDF'),
      headers: { 'content-range': 'bytes 0-3/4' },
    });
    expect(put.status).toBe(201);
    expect(upload?.bytes?.toString()).toBe('%PDF');
  });

  it('refuses a consent card outside personal chats', async () => {
    const { teams, token } = await start();
    const group = teams.groupChat([teams.person('Bob')]);
    const res = await fetch(
      `${teams.serviceUrl}v3/conversations/${encodeURIComponent(group.id)}/activities`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'message',
          attachments: [{ contentType: 'application/vnd.microsoft.teams.card.file.consent', content: {} }],
        }),
      },
    );
    expect(res.status).toBe(400);
  });
});
