/**
 * Control messages, in process and across replicas over PostgreSQL
 * LISTEN/NOTIFY: delivery to every subscriber once, within a second between
 * two connections, large messages, and a listener that loses its connection.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMemoryControlBus, createPostgresControlBus } from '../../src/cluster/index.js';
import type { ControlBus, ControlEnvelope, ControlMessage } from '../../src/cluster/types.js';
import { capturingLogger } from '../store/helpers.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const buses: ControlBus[] = [];
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});
afterAll(() => schemas?.cleanup());

/** Collects envelopes and lets a test wait for the n-th one (no sleeping). */
function inbox(bus: ControlBus) {
  const received: ControlEnvelope[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  bus.subscribe((envelope) => {
    received.push(envelope);
    for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
  });
  return {
    received,
    until(n: number, timeoutMs = 5000): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`got ${received.length} of ${n} messages in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** A publisher and a subscriber: the same bus in process, two replicas' buses over PostgreSQL. */
type Pair = (options?: {
  logger?: ReturnType<typeof capturingLogger>['logger'];
}) => Promise<[ControlBus, ControlBus]>;

const kinds: Array<[string, Pair | undefined]> = [
  [
    'in-process',
    async (options = {}) => {
      const bus = createMemoryControlBus({ origin: 'solo', ...options });
      buses.push(bus);
      return [bus, bus];
    },
  ],
  [
    'postgres',
    schemas &&
      (async (options = {}) => {
        const schema = await schemas.fresh();
        const a = createPostgresControlBus({ pool: schemas.pool(), schema, origin: 'replica-a', ...options });
        const b = createPostgresControlBus({ pool: schemas.pool(), schema, origin: 'replica-b', ...options });
        buses.push(a, b);
        return [a, b];
      }),
  ],
];

const stop: ControlMessage = { type: 'stop', user: { id: 'telegram:7', name: 'Ana' } };

describe.each(kinds)('%s control bus', (_kind, pair) => {
  if (!pair) {
    it.skip(SKIP_REASON, () => undefined);
    return;
  }

  it('delivers each message once to every subscriber, with its chat and origin', async () => {
    const [a, b] = await pair();
    const first = inbox(b);
    const second = inbox(b);
    await b.ready();
    await a.publish('telegram:42', stop);
    await a.publish('slack:C1:1.2', {
      type: 'button',
      payload: 'a:k3:allow',
      user: { id: 'slack:U1' },
      messageId: '9',
    });
    await Promise.all([first.until(2), second.until(2)]);
    expect(first.received.map((e) => [e.chat, e.message, e.origin])).toEqual([
      ['telegram:42', stop, a.origin],
      [
        'slack:C1:1.2',
        { type: 'button', payload: 'a:k3:allow', user: { id: 'slack:U1' }, messageId: '9' },
        a.origin,
      ],
    ]);
    expect(second.received.map((e) => e.id)).toEqual(first.received.map((e) => e.id));
    expect(new Set(first.received.map((e) => e.id)).size).toBe(2);
  });

  it('keeps delivering to other subscribers when one throws, and stops after unsubscribe', async () => {
    const { logger, lines } = capturingLogger();
    const [a, b] = await pair({ logger });
    const unsubscribe = b.subscribe(() => {
      throw new Error('handler broke');
    });
    const good = inbox(b);
    await b.ready();
    await a.publish('c1', stop);
    await good.until(1);
    expect(lines.some((l) => l.msg === 'control message handler failed')).toBe(true);
    unsubscribe();
    const failures = lines.length;
    await a.publish('c1', { type: 'edit', messageId: '5', text: 'edited', user: { id: 'u' } });
    await good.until(2);
    expect(lines.length).toBe(failures);
  });
});

describe.skipIf(!schemas)('postgres control bus across replicas', () => {
  const replicas = (schema: string, origin: string) => {
    if (!schemas) throw new Error('unreachable');
    const bus = createPostgresControlBus({ pool: schemas.pool(), schema, origin });
    buses.push(bus);
    return bus;
  };

  it('delivers a message from one connection to a subscriber on another within a second', async () => {
    const schema = (await schemas?.fresh()) ?? '';
    const publisher = replicas(schema, 'replica-a');
    const subscriber = replicas(schema, 'replica-b');
    const box = inbox(subscriber);
    await subscriber.ready();
    const sent = performance.now();
    await publisher.publish('telegram:42', stop);
    await box.until(1, 1000);
    expect(performance.now() - sent).toBeLessThan(1000);
    expect(box.received[0]).toMatchObject({ chat: 'telegram:42', message: stop, origin: 'replica-a' });
  });

  it('carries a message too large for a NOTIFY payload by reference, intact', async () => {
    const schema = (await schemas?.fresh()) ?? '';
    const publisher = replicas(schema, 'replica-a');
    const subscriber = replicas(schema, 'replica-b');
    const box = inbox(subscriber);
    await subscriber.ready();
    const text = `${'long edited message ✓ '.repeat(2000)}end`;
    await publisher.publish('discord:1', { type: 'edit', messageId: '77', text, user: { id: 'discord:5' } });
    await box.until(1);
    expect(box.received[0]?.message).toEqual({
      type: 'edit',
      messageId: '77',
      text,
      user: { id: 'discord:5' },
    });
  });

  it('reconnects a listener whose connection was killed and delivers what was published meanwhile, once', async () => {
    if (!schemas || !url) return;
    const schema = await schemas.fresh();
    const origin = `listener-${randomBytes(4).toString('hex')}`;
    const publisher = replicas(schema, 'replica-a');
    const subscriber = replicas(schema, origin);
    const box = inbox(subscriber);
    await subscriber.ready();
    await publisher.publish('c1', stop);
    await box.until(1);

    const admin = schemas.pool(1);
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1`,
      [`switchboard-bus ${origin}`],
    );
    expect(killed.rows).toEqual([{ done: true }]);
    // Published while the listener is down or reconnecting: NOTIFY alone would lose it.
    await publisher.publish('c2', { type: 'button', payload: 'p', user: { id: 'u' } });
    await box.until(2);
    await publisher.publish('c3', stop);
    await box.until(3);
    expect(box.received.map((e) => e.chat)).toEqual(['c1', 'c2', 'c3']);
    const again = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`,
      [`switchboard-bus ${origin}`],
    );
    expect(again.rows).toEqual([{ n: 1 }]);
  });

  it('delivers messages published between subscribing and listening', async () => {
    const schema = (await schemas?.fresh()) ?? '';
    const publisher = replicas(schema, 'replica-a');
    await publisher.ready();
    const subscriber = replicas(schema, 'replica-b');
    const box = inbox(subscriber);
    await publisher.publish('c1', stop);
    await subscriber.ready();
    await box.until(1);
    expect(box.received.map((e) => e.chat)).toEqual(['c1']);
  });
});
