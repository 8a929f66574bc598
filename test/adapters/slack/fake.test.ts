/**
 * The fake Slack itself: the rules it enforces and its fault hooks, checked
 * over raw HTTP so the fake cannot be right only by agreeing with the adapter.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type FakeSlack, slackSignature, startFakeSlack } from '../../fakes/slack/index.js';

let fake: FakeSlack;

beforeEach(async () => {
  fake = await startFakeSlack({ limits: { updateIntervalMs: 200, appendIntervalMs: 100 } });
});
afterEach(async () => {
  await fake.close();
});

async function call(method: string, args: Record<string, unknown>, token = fake.botToken) {
  const body = new URLSearchParams(
    Object.entries(args).map(([k, v]): [string, string] => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]),
  ).toString();
  const res = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

describe('fake Slack Web API', () => {
  it('checks tokens and answers unknown methods like Slack', async () => {
    expect((await call('auth.test', {})).body).toMatchObject({ ok: true, user_id: 'UBOT', bot_id: 'BBOT' });
    expect((await call('auth.test', {}, 'xoxb-nope')).body).toEqual({ ok: false, error: 'invalid_auth' });
    expect((await call('apps.connections.open', {})).body.error).toBe('invalid_auth');
    expect((await call('apps.connections.open', {}, fake.appToken)).body.url).toMatch(
      /^ws:\/\/127\.0\.0\.1:\d+\/socket/,
    );
    expect((await call('chat.flyToTheMoon', {})).body.error).toBe('unknown_method');
  });

  it('enforces text and block limits', async () => {
    expect((await call('chat.postMessage', { channel: 'C1', text: 'x'.repeat(40_001) })).body.error).toBe(
      'msg_too_long',
    );
    expect((await call('chat.postMessage', { channel: 'C1' })).body.error).toBe('no_text');
    const section = (n: number) => [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(n) } }];
    expect(
      (await call('chat.postMessage', { channel: 'C1', text: 'f', blocks: section(3001) })).body.error,
    ).toBe('invalid_blocks');
    expect(
      (await call('chat.postMessage', { channel: 'C1', text: 'f', blocks: section(3000) })).body.ok,
    ).toBe(true);
    const button = (id: string, value: string) => ({
      type: 'button',
      text: { type: 'plain_text', text: 'B' },
      action_id: id,
      value,
    });
    const dup = [{ type: 'actions', elements: [button('a', '1'), button('a', '2')] }];
    expect((await call('chat.postMessage', { channel: 'C1', text: 'f', blocks: dup })).body.error).toBe(
      'invalid_blocks',
    );
    const big = [{ type: 'actions', elements: [button('a', 'v'.repeat(2001))] }];
    expect((await call('chat.postMessage', { channel: 'C1', text: 'f', blocks: big })).body.error).toBe(
      'invalid_blocks',
    );
    expect(
      (await call('chat.postMessage', { channel: 'C1', markdown_text: 'm'.repeat(12_001) })).body.error,
    ).toBe('msg_too_long');
  });

  it('answers chat.update paced faster than configured with 429 and Retry-After, and keeps the text', async () => {
    const { body } = await call('chat.postMessage', { channel: 'C1', text: 'v1' });
    const ts = String(body.ts);
    expect((await call('chat.update', { channel: 'C1', ts, text: 'v2' })).status).toBe(200);
    const fast = await call('chat.update', { channel: 'C1', ts, text: 'v3' });
    expect(fast).toMatchObject({ status: 429, retryAfter: '1', body: { ok: false, error: 'ratelimited' } });
    expect(fake.state.get('C1', ts)?.text).toBe('v2');
    expect(fake.state.get('C1', ts)?.history).toEqual(['v1', 'v2']);
    expect(fake.rateLimited).toHaveLength(1);
  });

  it('applies a per-channel chat.update budget', async () => {
    fake.limits.updateIntervalMs = 0;
    fake.limits.updateBudget = 2;
    const a = String((await call('chat.postMessage', { channel: 'C1', text: 'a' })).body.ts);
    const b = String((await call('chat.postMessage', { channel: 'C1', text: 'b' })).body.ts);
    expect((await call('chat.update', { channel: 'C1', ts: a, text: 'a2' })).status).toBe(200);
    expect((await call('chat.update', { channel: 'C1', ts: b, text: 'b2' })).status).toBe(200);
    expect((await call('chat.update', { channel: 'C1', ts: a, text: 'a3' })).status).toBe(429);
  });

  it('streams: text is required to start, appends are paced, stop completes the message', async () => {
    const start = await call('chat.startStream', { channel: 'D1', thread_ts: '1.1' });
    expect(start.body.error).toBe('invalid_arguments');
    const outsideDm = await call('chat.startStream', { channel: 'C1', thread_ts: '1.1', markdown_text: 'x' });
    expect(outsideDm.body.error).toBe('invalid_arguments');
    const ts = String(
      (await call('chat.startStream', { channel: 'D1', thread_ts: '1.1', markdown_text: 'Hel' })).body.ts,
    );
    expect((await call('chat.appendStream', { channel: 'D1', ts, markdown_text: 'lo' })).status).toBe(429);
    fake.limits.appendIntervalMs = 0;
    expect((await call('chat.appendStream', { channel: 'D1', ts, markdown_text: 'lo' })).body.ok).toBe(true);
    expect((await call('chat.stopStream', { channel: 'D1', ts, markdown_text: '!' })).body.ok).toBe(true);
    expect(fake.state.get('D1', ts)).toMatchObject({ text: 'Hello!', streamState: 'completed' });
    expect((await call('chat.appendStream', { channel: 'D1', ts, markdown_text: 'more' })).body.error).toBe(
      'message_not_in_streaming_state',
    );
    fake.streaming = 'http404';
    expect(
      (await call('chat.startStream', { channel: 'D1', thread_ts: '1.1', markdown_text: 'x' })).status,
    ).toBe(404);
  });

  it('fault hooks: 5xx, errors, 429s, delays and dropped connections, then normal service', async () => {
    fake.faults.push(
      { method: 'chat.postMessage', status: 503 },
      { method: /^chat\./, error: 'fatal_error' },
      { method: 'auth.test', status: 429, retryAfterSec: 2 },
      { method: 'auth.test', delayMs: 50 },
      { method: 'auth.test', drop: true },
    );
    expect((await call('chat.postMessage', { channel: 'C1', text: 'x' })).status).toBe(503);
    expect((await call('chat.postMessage', { channel: 'C1', text: 'x' })).body.error).toBe('fatal_error');
    expect(await call('auth.test', {})).toMatchObject({ status: 429, retryAfter: '2' });
    const started = Date.now();
    expect((await call('auth.test', {})).body.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    await expect(call('auth.test', {})).rejects.toThrow();
    expect((await call('chat.postMessage', { channel: 'C1', text: 'x' })).body.ok).toBe(true);
    expect(fake.calls.map((c) => c.status)).toEqual([503, 200, 429, 200, 0, 200]);
  });

  it('Socket Mode: hello first, envelopes acked with latency recorded; disconnect on request', async () => {
    const { body } = await call('apps.connections.open', {}, fake.appToken);
    const ws = new WebSocket(String(body.url));
    const frames: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      frames.push(frame);
      if (frame.envelope_id) ws.send(JSON.stringify({ envelope_id: frame.envelope_id, payload: {} }));
    });
    await fake.socket.waitForConnection();
    const ack = await fake.socket.send('events_api', fake.eventBody({ type: 'message', ts: '1.1' }), {
      retryAttempt: 2,
    });
    expect(frames[0]?.type).toBe('hello');
    expect(frames[1]).toMatchObject({ type: 'events_api', retry_attempt: 2, retry_reason: 'timeout' });
    expect(ack.latencyMs).toBeGreaterThanOrEqual(0);
    expect(fake.socket.acks).toHaveLength(1);
    fake.socket.sendDisconnect();
    await new Promise((resolve) => ws.once('message', resolve));
    expect(frames.at(-1)).toEqual({ type: 'disconnect', reason: 'refresh_requested' });
    ws.close();
    await fake.socket.waitForDisconnect();
  });

  it('signs HTTP-mode requests the way Slack does', () => {
    // Slack's documented example.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, body)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });
});
