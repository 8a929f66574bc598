/**
 * The fake Bot Connector's own rules: the bot's token, the conversation
 * operations, 404s, the size limit, per-thread rate limits with
 * Retry-After, injected faults. Plain fetch plays the bot here; the
 * adapter's tests drive the real SDK against the same fake.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/clock.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { type FakeTeams, type FakeTeamsOptions, startFakeTeams } from './index.js';

const cleanups = useCleanups();

async function start(options: FakeTeamsOptions = {}): Promise<FakeTeams> {
  const teams = await startFakeTeams(options);
  cleanups.push(() => teams.close());
  return teams;
}

async function botToken(teams: FakeTeams, overrides: Record<string, string> = {}): Promise<Response> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: teams.appId,
    client_secret: teams.appPassword,
    scope: 'https://api.botframework.com/.default',
    ...overrides,
  });
  return fetch(teams.tokenUrl(), {
    method: 'POST',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function connector(teams: FakeTeams) {
  const access_token = await teams.accessToken();
  return (method: string, path: string, body?: unknown) =>
    fetch(`${teams.serviceUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

describe('fake Teams: the token endpoint and the bot token', () => {
  it('hands out a token for the right client credentials and refuses wrong ones', async () => {
    const teams = await start();
    const ok = await botToken(teams);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect((await botToken(teams, { client_secret: 'wrong' })).status).toBe(401);
    expect(await (await botToken(teams, { client_id: 'someone-else' })).json()).toMatchObject({
      error: 'unauthorized_client',
    });
    expect(
      await (await botToken(teams, { scope: 'https://graph.microsoft.com/.default' })).json(),
    ).toMatchObject({ error: 'invalid_scope' });
    expect(teams.calls.some((c) => JSON.stringify(c.body ?? {}).includes(teams.appPassword))).toBe(false);
  });

  it('gives a single-tenant bot tokens only from its own tenant; a multi-tenant one from botframework.com too', async () => {
    const single = await start();
    const fromBotFramework = await fetch(single.tokenUrl('botframework.com'), {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: single.appId,
        client_secret: single.appPassword,
        scope: 'https://api.botframework.com/.default',
      }),
    });
    expect(fromBotFramework.status).toBe(400);
    expect(await fromBotFramework.json()).toMatchObject({ error: 'unauthorized_client' });
    const multi = await start({ multiTenant: true });
    const ok = await fetch(multi.tokenUrl('botframework.com'), {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: multi.appId,
        client_secret: multi.appPassword,
        scope: 'https://api.botframework.com/.default',
      }),
    });
    expect(ok.status).toBe(200);
  });

  it('refuses connector calls without a valid token (401)', async () => {
    const teams = await start();
    const chat = teams.personalChat('Ada');
    const bare = await fetch(
      `${teams.serviceUrl}v3/conversations/${encodeURIComponent(chat.id)}/activities`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'message', text: 'hi' }),
      },
    );
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ message: 'Authorization has been denied for this request.' });
    expect(teams.sent).toHaveLength(0);
  });
});

describe('fake Teams: conversation operations', () => {
  it('sends, replies, updates and deletes; unknown ids are 404', async () => {
    const teams = await start();
    const call = await connector(teams);
    const chat = teams.personalChat('Ada');
    const cid = encodeURIComponent(chat.id);
    const sent = await call('POST', `v3/conversations/${cid}/activities`, { type: 'message', text: 'one' });
    expect(sent.status).toBe(201);
    const { id } = (await sent.json()) as { id: string };
    expect(
      (await call('PUT', `v3/conversations/${cid}/activities/${id}`, { type: 'message', text: 'two' }))
        .status,
    ).toBe(200);
    expect(teams.messages(chat.id).map((m) => m.activity.text)).toEqual(['two']);
    expect(
      (await call('POST', `v3/conversations/${cid}/activities/${id}`, { type: 'message', text: 'reply' }))
        .status,
    ).toBe(201);
    expect((await call('DELETE', `v3/conversations/${cid}/activities/${id}`)).status).toBe(200);
    expect(teams.messages(chat.id).map((m) => m.activity.text)).toEqual(['reply']);
    const gone = await call('PUT', `v3/conversations/${cid}/activities/${id}`, {
      type: 'message',
      text: 'three',
    });
    expect(gone.status).toBe(404);
    const nowhere = await call('POST', 'v3/conversations/a%3Anobody/activities', {
      type: 'message',
      text: 'x',
    });
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toMatchObject({ error: { code: 'ConversationNotFound' } });
  });

  it('lists members with the recorded roster fields, and creates (or finds) a personal chat', async () => {
    const teams = await start();
    const call = await connector(teams);
    const ada = teams.person('Ada Lovelace');
    const channel = teams.channel([ada]);
    const roster = (await (
      await call('GET', `v3/conversations/${encodeURIComponent(channel.id)}/members`)
    ).json()) as Record<string, unknown>[];
    const recorded = JSON.parse(
      readFileSync(
        new URL('../../fixtures/teams/recorded/channel-members-reply.json', import.meta.url),
        'utf8',
      ),
    ) as { response: Record<string, unknown>[] };
    expect(
      Object.keys(roster[0] ?? {})
        .filter((k) => k !== 'userRole')
        .sort(),
    ).toEqual(Object.keys(recorded.response[0] ?? {}).sort());
    const one = await call(
      'GET',
      `v3/conversations/${encodeURIComponent(channel.id)}/members/${encodeURIComponent(ada.id)}`,
    );
    expect(await one.json()).toMatchObject({ id: ada.id, objectId: ada.aadObjectId });
    const body = {
      bot: teams.botAccount,
      members: [{ id: ada.id }],
      channelData: { tenant: { id: teams.tenantId } },
    };
    const created = (await (await call('POST', 'v3/conversations', body)).json()) as { id: string };
    expect(created.id).toMatch(/^a:/);
    expect(((await (await call('POST', 'v3/conversations', body)).json()) as { id: string }).id).toBe(
      created.id,
    );
    const stranger = await call('POST', 'v3/conversations', { ...body, members: [{ id: '29:nobody' }] });
    expect(stranger.status).toBe(403);
  });

  it("refuses to edit or delete a person's message (403)", async () => {
    const teams = await start();
    const call = await connector(teams);
    const chat = teams.personalChat('Ada');
    teams.setBotEndpoint(`${teams.baseUrl}/nowhere`);
    const { activity } = await teams.userMessage(chat, 'mine');
    const path = `v3/conversations/${encodeURIComponent(chat.id)}/activities/${activity.id as string}`;
    expect((await call('PUT', path, { type: 'message', text: 'edited' })).status).toBe(403);
    expect((await call('DELETE', path)).status).toBe(403);
  });

  it('puts a channel reply in the thread of the message it answers', async () => {
    const teams = await start();
    const call = await connector(teams);
    const channel = teams.channel([teams.person('Ada')]);
    const root = (await (
      await call('POST', `v3/conversations/${encodeURIComponent(channel.id)}/activities`, {
        type: 'message',
        text: 'root',
      })
    ).json()) as { id: string };
    await call('POST', `v3/conversations/${encodeURIComponent(channel.id)}/activities/${root.id}`, {
      type: 'message',
      text: 'in thread',
    });
    const reply = teams.sent.find((m) => m.activity.text === 'in thread');
    expect(reply?.conversationId).toBe(`${channel.id};messageid=${root.id}`);
  });

  it('answers 413 MessageSizeTooBig over the documented size', async () => {
    const teams = await start();
    const call = await connector(teams);
    const chat = teams.personalChat('Ada');
    // 100 KB counted as UTF-16: 51,200 characters are just over it.
    const res = await call('POST', `v3/conversations/${encodeURIComponent(chat.id)}/activities`, {
      type: 'message',
      text: 'x'.repeat(51_200),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'MessageSizeTooBig' } });
    const fits = await call('POST', `v3/conversations/${encodeURIComponent(chat.id)}/activities`, {
      type: 'message',
      text: 'x'.repeat(40_000),
    });
    expect(fits.status).toBe(201);
  });

  it('rate-limits per thread (7 per second, 8 per 2 s) with 429 and Retry-After, on its clock', async () => {
    const clock = new VirtualClock(1_000_000);
    const teams = await start({ now: () => clock.now() });
    const call = await connector(teams);
    const chat = teams.personalChat('Ada');
    const other = teams.personalChat('Bob');
    const send = (c = chat) =>
      call('POST', `v3/conversations/${encodeURIComponent(c.id)}/activities`, { type: 'message', text: 'm' });
    for (let i = 0; i < 7; i += 1) expect((await send()).status).toBe(201);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await send(other)).status).toBe(201);
    clock.advance(1_000);
    expect((await send()).status).toBe(201);
    // 8 in the last 2 s now: the second window holds.
    expect((await send()).status).toBe(429);
    clock.advance(1_000);
    expect((await send()).status).toBe(201);
  });

  it('injects faults: a 429 with its Retry-After, a 503, a dropped connection', async () => {
    const teams = await start();
    const call = await connector(teams);
    const chat = teams.personalChat('Ada');
    const path = `v3/conversations/${encodeURIComponent(chat.id)}/activities`;
    teams.faults.push(
      { op: 'send', status: 429, retryAfterSec: 2 },
      { op: 'send', status: 503 },
      { op: 'send', status: 0, drop: true },
    );
    const first = await call('POST', path, { type: 'message', text: 'a' });
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '2']);
    expect((await call('POST', path, { type: 'message', text: 'a' })).status).toBe(503);
    await expect(call('POST', path, { type: 'message', text: 'a' })).rejects.toThrow();
    expect((await call('POST', path, { type: 'message', text: 'a' })).status).toBe(201);
  });
});
