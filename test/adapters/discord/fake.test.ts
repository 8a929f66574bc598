import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';

describe('fake Discord REST rules', () => {
  let fake: FakeDiscord | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function call(method: string, path: string, body?: unknown, auth = true) {
    const res = await fetch(`${fake!.apiUrl}/v10${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(auth ? { authorization: `Bot ${fake!.token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  it('refuses a missing token, content over 2000 characters, empty messages and long custom_ids', async () => {
    fake = await startFakeDiscord();
    const path = `/channels/${fake.generalId}/messages`;
    expect((await call('POST', path, { content: 'hi' }, false)).status).toBe(401);
    const long = await call('POST', path, { content: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body.errors.content._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');
    expect((await call('POST', path, { content: 'x'.repeat(2000) })).status).toBe(200);
    expect((await call('POST', path, { content: '' })).body.code).toBe(50006);
    const button = (id: string) => ({
      type: 1,
      components: [{ type: 2, style: 1, label: 'b', custom_id: id }],
    });
    expect((await call('POST', path, { content: 'b', components: [button('c'.repeat(101))] })).status).toBe(
      400,
    );
    expect((await call('POST', path, { content: 'b', components: [button('c'.repeat(100))] })).status).toBe(
      200,
    );
  });

  it('answers 429 with retry_after in seconds and X-RateLimit headers past the per-channel limit', async () => {
    fake = await startFakeDiscord({ rateLimit: { count: 2, windowMs: 1000 } });
    const path = `/channels/${fake.generalId}/messages`;
    const first = await call('POST', path, { content: '1' });
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    await call('POST', path, { content: '2' });
    const limited = await call('POST', path, { content: '3' });
    expect(limited.status).toBe(429);
    expect(limited.body.global).toBe(false);
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeCloseTo(limited.body.retry_after, 3);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(fake.rateLimitedCalls).toHaveLength(1);
    expect(fake.channelMessages(fake.generalId).map((m) => m.content)).toEqual(['1', '2']);
  });

  it('injects faults for a share of matching calls and can drop connections', async () => {
    fake = await startFakeDiscord();
    const path = `/channels/${fake.generalId}/messages`;
    const remove = fake.addFault({ route: /^POST \/channels\/:id\/messages$/, status: 503, times: 2 });
    expect((await call('POST', path, { content: 'a' })).status).toBe(503);
    expect((await call('POST', path, { content: 'a' })).status).toBe(503);
    expect((await call('POST', path, { content: 'a' })).status).toBe(200);
    remove();
    fake.addFault({ route: 'POST /channels/:id/messages', drop: true, times: 1 });
    await expect(call('POST', path, { content: 'dropped' })).rejects.toThrow();
    fake.addFault({ route: 'POST /channels/:id/messages', status: 500, share: 0 });
    expect((await call('POST', path, { content: 'share 0 never fails' })).status).toBe(200);
  });
});
