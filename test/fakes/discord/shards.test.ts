/**
 * The fake gateway routes like Discord: READY and GUILD_CREATE carry only a
 * shard's own guilds, guild events go to the guild's shard, DMs to shard 0,
 * and an unsharded client gets everything. Raw `ws` clients, so what each
 * socket received is visible frame by frame.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FakeGateway } from './gateway.js';
import { type FakeDiscord, startFakeDiscord } from './index.js';

interface Frame {
  op: number;
  t?: string;
  s?: number;
  d: Record<string, unknown>;
}

/** A raw gateway client: every frame it received, and a way to wait for one. */
class RawShard {
  readonly frames: Frame[] = [];
  #waiters = new Set<() => void>();
  constructor(readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      this.frames.push(JSON.parse(String(raw)) as Frame);
      for (const w of [...this.#waiters]) w();
    });
  }

  static async connect(fake: FakeDiscord, shard?: [number, number]): Promise<RawShard> {
    const client = new RawShard(new WebSocket(fake.gatewayUrl));
    await once(client.socket, 'open');
    await client.next((f) => f.op === 10);
    client.socket.send(
      JSON.stringify({
        op: 2,
        d: { token: fake.token, intents: 1, properties: {}, ...(shard ? { shard } : {}) },
      }),
    );
    await client.next((f) => f.t === 'READY');
    return client;
  }

  next(match: (f: Frame) => boolean): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.find(match);
        if (!found) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error('raw shard: timed out'));
      }, 5000);
      this.#waiters.add(check);
      check();
    });
  }

  dispatched(t: string): Frame[] {
    return this.frames.filter((f) => f.t === t);
  }
}

let fake: FakeDiscord | undefined;
const clients: RawShard[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.terminate();
  await fake?.close();
  fake = undefined;
});

describe('the fake gateway with shards', () => {
  it('adds guilds whose ids Discord routes to the asked shard', async () => {
    fake = await startFakeDiscord();
    for (const count of [1, 2, 3, 16]) {
      for (let shard = 0; shard < count; shard += 1) {
        const { id } = fake.addGuild({ shard: [shard, count] });
        expect(Number((BigInt(id) >> 22n) % BigInt(count))).toBe(shard);
        expect(FakeGateway.shardOf(id, count)).toBe(shard);
        expect(fake.guilds.has(id)).toBe(true);
      }
    }
  });

  it('sends each shard only its guilds, routes guild events to their shard and DMs to shard 0', async () => {
    fake = await startFakeDiscord();
    const a = fake.addGuild({ name: 'A', shard: [0, 2] });
    const b = fake.addGuild({ name: 'B', shard: [1, 2] });
    expect((BigInt(a.id) >> 22n) % 2n).toBe(0n);
    expect((BigInt(b.id) >> 22n) % 2n).toBe(1n);
    const zero = await RawShard.connect(fake, [0, 2]);
    const one = await RawShard.connect(fake, [1, 2]);
    clients.push(zero, one);

    const readyGuilds = (c: RawShard) =>
      ((c.dispatched('READY')[0]?.d.guilds ?? []) as { id: string }[]).map((g) => g.id).sort();
    const all = [...fake.guilds.keys()];
    const ofShard = (s: number) => all.filter((g) => FakeGateway.shardOf(g, 2) === s).sort();
    expect(readyGuilds(zero)).toEqual(ofShard(0));
    expect(readyGuilds(one)).toEqual(ofShard(1));
    expect(readyGuilds(zero)).toContain(a.id);
    expect(readyGuilds(one)).toContain(b.id);
    expect(zero.dispatched('READY')[0]?.d.shard).toEqual([0, 2]);
    expect(one.dispatched('READY')[0]?.d.shard).toEqual([1, 2]);
    await one.next((f) => f.t === 'GUILD_CREATE' && f.d.id === b.id);
    await zero.next((f) => f.t === 'GUILD_CREATE' && f.d.id === a.id);

    const alice = fake.user('alice');
    fake.userMessage({ channelId: a.generalId, author: alice, content: 'in A' });
    fake.userMessage({ channelId: b.generalId, author: alice, content: 'in B' });
    fake.userMessage({ channelId: fake.dmChannel(alice).id, author: alice, content: 'in a DM' });
    fake.slashCommand({ channelId: b.generalId, user: alice, name: 'new' });
    await one.next((f) => f.t === 'INTERACTION_CREATE');
    await zero.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'in a DM');

    const contents = (c: RawShard) => c.dispatched('MESSAGE_CREATE').map((f) => f.d.content);
    expect(contents(zero)).toEqual(['in A', 'in a DM']);
    expect(contents(one)).toEqual(['in B']);
    expect(zero.dispatched('INTERACTION_CREATE')).toHaveLength(0);
    expect(zero.dispatched('GUILD_CREATE').map((f) => f.d.id)).toEqual(ofShard(0));
    expect(one.dispatched('GUILD_CREATE').map((f) => f.d.id)).toEqual(ofShard(1));
    const sent = fake.gateway.dispatches.filter((d) => d.t !== 'GUILD_CREATE');
    expect(sent.map((d) => [d.t, d.guildId, d.shard])).toEqual([
      ['MESSAGE_CREATE', a.id, 0],
      ['MESSAGE_CREATE', b.id, 1],
      ['MESSAGE_CREATE', undefined, 0],
      ['INTERACTION_CREATE', b.id, 1],
    ]);
  });

  it('gives an unsharded client every guild and every event', async () => {
    fake = await startFakeDiscord();
    const a = fake.addGuild({ shard: [0, 2] });
    const b = fake.addGuild({ shard: [1, 2] });
    const only = await RawShard.connect(fake);
    clients.push(only);
    const ready = only.dispatched('READY')[0]?.d;
    expect(ready?.shard).toEqual([0, 1]);
    expect(((ready?.guilds ?? []) as { id: string }[]).map((g) => g.id).sort()).toEqual(
      [...fake.guilds.keys()].sort(),
    );
    const alice = fake.user('alice');
    fake.userMessage({ channelId: a.generalId, author: alice, content: 'in A' });
    fake.userMessage({ channelId: b.generalId, author: alice, content: 'in B' });
    await only.next((f) => f.d?.content === 'in B');
    expect(only.dispatched('MESSAGE_CREATE').map((f) => f.d.content)).toEqual(['in A', 'in B']);
    expect(fake.gateway.log.at(-1)).toEqual({ op: 'identify', intents: 1 });
  });

  it('closes an IDENTIFY whose shard is out of range with 4010', async () => {
    fake = await startFakeDiscord();
    const socket = new WebSocket(fake.gatewayUrl);
    clients.push(new RawShard(socket));
    await once(socket, 'open');
    socket.send(JSON.stringify({ op: 2, d: { token: fake.token, intents: 1, shard: [2, 2] } }));
    const [code] = (await once(socket, 'close')) as [number];
    expect(code).toBe(4010);
  });
});
