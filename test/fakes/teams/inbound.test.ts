/**
 * What the fake posts to a bot's messaging endpoint, compared with what the
 * real Teams posted (test/fixtures/teams/recorded/): the same fields at the
 * top and in `conversation`, the same thread and mention shapes, and a
 * Bearer token on each post. A bare node:http server plays the bot.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { type Activity, type FakeTeams, startFakeTeams } from './index.js';

const cleanups = useCleanups();

function recorded(name: string): Activity {
  const file = new URL(`../../fixtures/teams/recorded/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { body: Activity }).body;
}

interface Received {
  headers: IncomingHttpHeaders;
  activity: Activity;
}

/** A bot endpoint that keeps what it gets and answers invokes with `invokeAnswer`. */
async function startBot(
  teams: FakeTeams,
  invokeAnswer: unknown = { status: 200, body: {} },
): Promise<Received[]> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const activity = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Activity;
      got.push({ headers: req.headers, activity });
      if (activity.type === 'invoke')
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(invokeAnswer));
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  teams.setBotEndpoint(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/messages`);
  return got;
}

async function start(): Promise<FakeTeams> {
  const teams = await startFakeTeams();
  cleanups.push(() => teams.close());
  return teams;
}

const keys = (a: unknown) => Object.keys(a as object).sort();

describe('fake Teams: what it posts to the bot', () => {
  it('posts a personal message shaped like the recorded one, with a Bearer token', async () => {
    const teams = await start();
    const got = await startBot(teams);
    const { answer } = await teams.userMessage(teams.personalChat('Ada'), 'file');
    expect(answer.status).toBe(200);
    const [{ headers, activity }] = got as [Received];
    expect(headers.authorization).toMatch(/^Bearer ey/);
    const real = recorded('personal-message');
    expect(keys(activity)).toEqual(keys(real));
    expect(keys(activity.conversation)).toEqual(keys(real.conversation));
    expect(keys(activity.from)).toEqual(keys(real.from));
    expect(activity.serviceUrl).toBe(teams.serviceUrl);
  });

  it('posts a channel mention shaped like the recorded one: its own thread, <at> text, entity and html', async () => {
    const teams = await start();
    const got = await startBot(teams);
    const channel = teams.channel([teams.person('Ada')]);
    await teams.userMessage(channel, '1\n', { mentionBot: true });
    const activity = (got[0] as Received).activity;
    const real = recorded('channel-message-mention');
    expect(keys(activity)).toEqual(keys(real));
    expect(keys(activity.conversation)).toEqual(keys(real.conversation));
    expect(activity.conversation).toMatchObject({ id: `${channel.id};messageid=${activity.id}` });
    expect(activity.text).toBe(`<at>${teams.botName}</at>1\n`);
    expect((activity.entities as Activity[])[0]).toMatchObject({
      type: 'mention',
      mentioned: { id: `28:${teams.appId}` },
    });
    expect(keys((activity.attachments as Activity[])[0])).toEqual(keys((real.attachments as Activity[])[0]));
  });

  it('posts card presses and conversationUpdates shaped like the recorded ones', async () => {
    const teams = await start();
    const got = await startBot(teams, {
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'ok',
    });
    const channel = teams.channel([teams.person('Ada')]);
    const { answer, problem } = await teams.cardAction(channel, '1700000000000', 'approve', { id: 'r1' });
    expect(answer).toMatchObject({ status: 200, body: { statusCode: 200 }, late: false });
    expect(problem).toBeUndefined();
    await teams.cardSubmit(channel, '1700000000000', { choice: 'yes' });
    await teams.botAdded(teams.groupChat([teams.person('Bob')]));
    const [invoke, submit, update] = got.map((g) => g.activity) as [Activity, Activity, Activity];
    expect(keys(invoke).filter((k) => k !== 'name')).toEqual(keys(recorded('channel-card-invoke')));
    expect(invoke).toMatchObject({
      name: 'adaptiveCard/action',
      value: { action: { type: 'Action.Execute', verb: 'approve', data: { id: 'r1' } } },
    });
    expect(keys(submit)).toEqual(keys(recorded('channel-card-submit')));
    expect(keys(update)).toEqual(keys(recorded('groupchat-conversation-update')));
    expect(update.membersAdded).toEqual([{ id: `28:${teams.appId}`, name: teams.botName }]);
  });

  it('says why Teams would refuse an answer to a card action', async () => {
    const teams = await start();
    await startBot(teams, { status: 200, body: {} });
    const { problem } = await teams.cardAction(teams.personalChat('Ada'), '1700000000000', 'approve');
    expect(problem).toBe('the body needs a numeric statusCode');
    const slow = await startFakeTeams({ limits: { invokeDeadlineMs: 0 } });
    cleanups.push(() => slow.close());
    await startBot(slow, {
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'ok',
    });
    expect((await slow.cardAction(slow.personalChat('Ada'), '1', 'approve')).problem).toMatch(
      /^answered after/,
    );
  });

  it('posts a late invoke again, as the Teams client does, when asked to', async () => {
    const teams = await startFakeTeams({ limits: { invokeDeadlineMs: 20 } });
    cleanups.push(() => teams.close());
    // A bot that answers nothing until the third copy of the press arrives.
    const seen: string[] = [];
    const held: Array<() => void> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as Activity).id as string);
        held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
        if (seen.length === 3) for (const answer of held) answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    teams.setBotEndpoint(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/messages`);
    const { answer, activity } = await teams.cardAction(
      teams.personalChat('Ada'),
      '1',
      'approve',
      {},
      { retriesWhenLate: 2 },
    );
    expect(answer.late).toBe(true);
    expect(answer.retries).toHaveLength(2);
    expect(seen).toEqual([activity.id, activity.id, activity.id]);
  });

  it('sends no Authorization header for auth "none"', async () => {
    const teams = await start();
    const got = await startBot(teams);
    await teams.userMessage(teams.personalChat('Ada'), 'hi', { auth: 'none' });
    expect((got[0] as Received).headers.authorization).toBeUndefined();
  });
});
