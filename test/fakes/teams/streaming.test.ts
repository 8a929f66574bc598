/**
 * The fake's streaming rules (Teams' "Stream bot messages" page): personal
 * chats only, one stream per chat, growing sequence and text, one update
 * per second, two minutes at most, final ends it, the user's Stop refuses
 * later updates. A VirtualClock drives the timing.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/clock.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { type FakeConversation, type FakeTeams, startFakeTeams } from './index.js';

const cleanups = useCleanups();

interface Harness {
  teams: FakeTeams;
  clock: VirtualClock;
  chat: FakeConversation;
  post(
    type: 'typing' | 'message',
    text: string,
    info: Record<string, unknown>,
    chat?: FakeConversation,
  ): Promise<{ status: number; body: { id?: string; error?: { code: string; message: string } } }>;
}

async function harness(): Promise<Harness> {
  const clock = new VirtualClock(5_000_000);
  const teams = await startFakeTeams({ now: () => clock.now() });
  cleanups.push(() => teams.close());
  const access_token = await teams.accessToken();
  const chat = teams.personalChat('Ada');
  return {
    teams,
    clock,
    chat,
    async post(type, text, info, to = chat) {
      const res = await fetch(`${teams.serviceUrl}v3/conversations/${encodeURIComponent(to.id)}/activities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type, text, entities: [{ type: 'streaminfo', ...info }] }),
      });
      return {
        status: res.status,
        body: (await res.json()) as { id?: string; error?: { code: string; message: string } },
      };
    },
  };
}

describe('fake Teams: streaming', () => {
  it('streams informative, then growing text, then a final message that takes the stream id', async () => {
    const { teams, clock, chat, post } = await harness();
    const start = await post('typing', 'Thinking…', { streamType: 'informative', streamSequence: 1 });
    expect(start.status).toBe(201);
    const streamId = start.body.id as string;
    clock.advance(1_000);
    expect(
      (await post('typing', 'The brown', { streamType: 'streaming', streamSequence: 2, streamId })).status,
    ).toBe(201);
    clock.advance(1_000);
    expect(
      (await post('typing', 'The brown fox', { streamType: 'streaming', streamSequence: 3, streamId }))
        .status,
    ).toBe(201);
    clock.advance(1_000);
    const final = await post('message', 'The brown fox jumps', { streamType: 'final', streamId });
    expect(final).toMatchObject({ status: 201, body: { id: streamId } });
    expect(teams.messages(chat.id).map((m) => [m.id, m.activity.text])).toEqual([
      [streamId, 'The brown fox jumps'],
    ]);
    expect(teams.allStreams[0]?.updates.map((u) => u.text)).toEqual([
      'Thinking…',
      'The brown',
      'The brown fox',
    ]);
    clock.advance(1_000);
    const after = await post('typing', 'more', { streamType: 'streaming', streamSequence: 4, streamId });
    expect(after).toMatchObject({
      status: 400,
      body: { error: { message: 'Content stream is not allowed on an already completed streamed message' } },
    });
  });

  it('refuses streams outside personal chats and a second stream in the same chat', async () => {
    const { teams, post } = await harness();
    const group = teams.groupChat([teams.person('Bob')]);
    const refused = await post('typing', 'hi', { streamType: 'streaming', streamSequence: 1 }, group);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'ContentStreamNotAllowed' } } });
    expect((await post('typing', 'one', { streamType: 'streaming', streamSequence: 1 })).status).toBe(201);
    expect((await post('typing', 'two', { streamType: 'streaming', streamSequence: 1 })).status).toBe(403);
  });

  it('refuses a shrinking text, a sequence that does not grow, and updates faster than one per second', async () => {
    const { clock, post } = await harness();
    const streamId = (await post('typing', 'abc', { streamType: 'streaming', streamSequence: 1 })).body
      .id as string;
    expect(
      (await post('typing', 'abcd', { streamType: 'streaming', streamSequence: 2, streamId })).status,
    ).toBe(403);
    clock.advance(1_000);
    const shrunk = await post('typing', 'xyz', { streamType: 'streaming', streamSequence: 2, streamId });
    expect(shrunk).toMatchObject({
      status: 400,
      body: { error: { message: 'Request streamed content should contain the previously streamed content' } },
    });
    expect(
      (await post('typing', 'abcd', { streamType: 'streaming', streamSequence: 1, streamId })).status,
    ).toBe(400);
    expect(
      (await post('typing', 'abcd', { streamType: 'streaming', streamSequence: 2, streamId })).status,
    ).toBe(201);
  });

  it('ends a stream after two minutes and when the user presses Stop', async () => {
    const { teams, clock, post } = await harness();
    const first = (await post('typing', 'a', { streamType: 'streaming', streamSequence: 1 })).body
      .id as string;
    clock.advance(120_001);
    const late = await post('typing', 'ab', { streamType: 'streaming', streamSequence: 2, streamId: first });
    expect(late).toMatchObject({
      status: 403,
      body: { error: { message: 'Content stream finished due to exceeded streaming time.' } },
    });
    const second = (await post('typing', 'b', { streamType: 'streaming', streamSequence: 1 })).body
      .id as string;
    teams.cancelStream(second);
    clock.advance(1_000);
    const stopped = await post('typing', 'bc', {
      streamType: 'streaming',
      streamSequence: 2,
      streamId: second,
    });
    expect(stopped).toMatchObject({
      status: 403,
      body: { error: { message: 'Content stream was cancelled by user' } },
    });
  });

  it('refuses informative text over 1000 characters', async () => {
    const { post } = await harness();
    expect(
      (await post('typing', 'x'.repeat(1_001), { streamType: 'informative', streamSequence: 1 })).status,
    ).toBe(400);
  });
});
