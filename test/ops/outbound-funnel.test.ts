/**
 * The outbound funnel: every outbound call of the adapter contract, and the
 * core's answer to an inbound event, passes through one hook, so /metrics counts each call the outbox makes (streams,
 * uploads, threads), the 429s among them, and a call added to the contract
 * without the funnel walking it does not typecheck.
 */
import { describe, expect, it } from 'vitest';
import type { ChatAdapter, ChatEvent, EventSink } from '../../src/bot/adapter-contract.js';
import { OUTBOUND_METHODS, type OutboundCall, type OutboundCalls } from '../../src/bot/outbound-calls.js';
import { createOutbox } from '../../src/bot/stream/index.js';
import { VirtualClock } from '../../src/clock.js';
import { RateLimitError, SwitchboardError } from '../../src/errors.js';
import { instrumentAdapter } from '../../src/ops/instrument-adapter.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { interceptOutbound, outboundMethods } from '../../src/ops/outbound-funnel.js';
import { DEFAULT_CAPABILITIES, RecordingAdapter } from '../fakes/recording-adapter.js';
import { selfMethods, unwalkedCalls } from './contract-members.js';

/** `switchboard_platform_calls_total` as `method/outcome -> count`, for one platform. */
async function platformCalls(metrics: ReturnType<typeof createMetrics>, platform: string) {
  const counts: Record<string, number> = {};
  const metric = await metrics.registry.getSingleMetric('switchboard_platform_calls_total')?.get();
  for (const { labels, value } of metric?.values ?? []) {
    if (labels.platform === platform && value > 0) counts[`${labels.method}/${labels.outcome}`] = value;
  }
  return counts;
}

/** An adapter with every call of the contract, each outbound one answering with its own name. */
function completeAdapter(reached: string[]): ChatAdapter & Required<OutboundCalls> {
  const answer =
    (method: string) =>
    async (...args: unknown[]): Promise<never> => {
      reached.push(`${method}(${args.length})`);
      return { messageId: method, chat: 'test:1', id: method } as never;
    };
  return {
    platform: 'test',
    globalBudget: { count: 30, windowMs: 1000 },
    capabilities: () => DEFAULT_CAPABILITIES,
    start: async () => {},
    stop: async () => {},
    describeChat: (chat) => chat,
    health: () => undefined,
    send: answer('send'),
    edit: answer('edit'),
    delete: answer('delete'),
    typing: answer('typing'),
    sendFile: answer('sendFile'),
    openThread: answer('openThread'),
    startStream: answer('startStream'),
    updateStream: answer('updateStream'),
    finishStream: answer('finishStream'),
  };
}

describe('the outbound funnel', () => {
  it('routes every outbound call of the contract through the hook, once, with its arguments and result', async () => {
    const reached: string[] = [];
    const adapter = completeAdapter(reached);
    const seen: OutboundCall[] = [];
    const same = interceptOutbound(adapter, async (call, next) => {
      seen.push(call);
      return next();
    });
    expect(same).toBe(adapter);
    const calls = adapter as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const method of outboundMethods) {
      await expect(calls[method]!('test:1', 'x')).resolves.toMatchObject({ messageId: method });
    }
    expect(seen.map((c) => c.method)).toEqual(outboundMethods);
    expect(seen.every((c) => c.platform === 'test' && c.args.length === 2)).toBe(true);
    expect(reached).toEqual(outboundMethods.map((m) => `${m}(2)`));
    // Its own description and lifecycle are not platform calls made for a chat.
    adapter.describeChat?.('test:1');
    adapter.capabilities('test:1');
    await adapter.start(async () => {});
    expect(seen).toHaveLength(outboundMethods.length);
  });

  it('walks exactly the outbound members of the contract: a new one that is not walked fails typecheck', () => {
    const adapter = completeAdapter([]);
    const everyMethod = Object.keys(adapter).filter(
      (key) => typeof (adapter as unknown as Record<string, unknown>)[key] === 'function',
    );
    expect([...outboundMethods, ...selfMethods].sort()).toEqual(everyMethod.sort());
    expect(unwalkedCalls(completeAdapter([]))).toEqual([]);
    expect(unwalkedCalls({ ...completeAdapter([]), sendVoice: async () => {} } as ChatAdapter)).toEqual([
      'sendVoice',
    ]);

    // A contract that grew a call (voice notes, say) needs it in OUTBOUND_METHODS before it compiles;
    // one that grew a member that is no call (the terminal's end of input) does not.
    interface GrownContract extends ChatAdapter {
      sendVoice(chat: string, bytes: Uint8Array): Promise<void>;
    }
    interface ContractWithData extends ChatAdapter {
      readonly inputEnded?: Promise<void>;
    }
    const today: Record<keyof OutboundCalls, true> = OUTBOUND_METHODS;
    const withData: Record<keyof OutboundCalls<ContractWithData>, true> = OUTBOUND_METHODS;
    // @ts-expect-error sendVoice is outbound and OUTBOUND_METHODS does not name it
    const walked: Record<keyof OutboundCalls<GrownContract>, true> = OUTBOUND_METHODS;
    expect(walked).toBe(today);
    expect(withData).toBe(today);
    expect(Object.keys(walked)).not.toContain('sendVoice');
  });

  it('leaves an optional call the adapter lacks absent, so the core still learns it cannot upload there', async () => {
    const clock = new VirtualClock();
    // No uploads and no native stream here; threads, yes.
    const adapter = instrumentAdapter(new RecordingAdapter({ clock, threads: true }), createMetrics());
    expect('sendFile' in adapter).toBe(false);
    expect(adapter.startStream).toBeUndefined();
    expect(typeof adapter.openThread).toBe('function');
    const outbox = createOutbox({ adapters: [adapter], clock });
    const file = { name: 'a.txt', path: '/tmp/a.txt', bytes: new Uint8Array(1), mediaType: 'text/plain' };
    return expect(outbox.sendFile('test:1', { ...file, kind: 'document' })).rejects.toThrow(/cannot upload/);
  });

  it('routes the core’s answer to an inbound event (its `respond`) through the hook, and passes other events as they are', async () => {
    const adapter = completeAdapter([]);
    let sink: EventSink | undefined;
    adapter.start = async (s) => {
      sink = s;
    };
    const seen: OutboundCall[] = [];
    interceptOutbound(adapter, async (call, next) => {
      seen.push(call);
      return next();
    });
    const handed: ChatEvent[] = [];
    await adapter.start(async (event) => {
      handed.push(event);
      if (event.type === 'button') await event.respond({ text: 'Expired.', ephemeral: true });
    });
    const answers: string[] = [];
    const user = { id: 'u1', name: 'Ann' };
    const message: ChatEvent = { type: 'message', chat: 'test:1', user, text: 'hi', messageId: 'm1' };
    await sink?.(message);
    await sink?.({
      type: 'button',
      chat: 'test:1',
      user,
      payload: 'p',
      respond: async (reply) => {
        answers.push(reply.text);
      },
    });
    expect(handed[0]).toBe(message);
    expect(answers).toEqual(['Expired.']);
    expect(seen).toEqual([
      { platform: 'test', method: 'respond', args: [{ text: 'Expired.', ephemeral: true }] },
    ]);
  });

  it('puts a later hook outside an earlier one, as grammY runs the transformer installed last first', async () => {
    const order: string[] = [];
    const adapter = completeAdapter([]);
    for (const name of ['inner', 'outer']) {
      interceptOutbound(adapter, async (call, next) => {
        order.push(`${name}>${call.method}`);
        const result = await next();
        order.push(`${name}<`);
        return result;
      });
    }
    await adapter.typing('test:1');
    expect(order).toEqual(['outer>typing', 'inner>typing', 'inner<', 'outer<']);
  });

  it('counts each call by method and outcome, and hands the adapter’s error to the core unchanged', async () => {
    const metrics = createMetrics();
    const adapter = completeAdapter([]);
    const limited = new RateLimitError('slow down', { retryAfterMs: 1000, scope: 'chat' });
    const tooLarge = new SwitchboardError('FILE_TOO_LARGE', 'too large');
    const failures = [limited, tooLarge];
    adapter.sendFile = async () => {
      const failure = failures.shift();
      if (failure) throw failure;
      return { messageId: 'f1' };
    };
    instrumentAdapter(adapter, metrics);
    const file = {
      name: 'a.txt',
      path: '/tmp/a.txt',
      bytes: new Uint8Array(1),
      mediaType: 'text/plain',
      kind: 'document',
    } as const;
    await expect(adapter.sendFile('test:1', file)).rejects.toBe(limited);
    await expect(adapter.sendFile('test:1', file)).rejects.toBe(tooLarge);
    await expect(adapter.sendFile('test:1', file)).resolves.toEqual({ messageId: 'f1' });
    expect(await platformCalls(metrics, 'test')).toEqual({
      'sendFile/rate_limited': 1,
      'sendFile/error': 1,
      'sendFile/ok': 1,
    });
  });

  it('counts every call the outbox makes for a streamed reply, the refused ones among them, as the platform saw them', async () => {
    const clock = new VirtualClock();
    const metrics = createMetrics();
    const adapter = new RecordingAdapter({
      clock,
      nativeStream: true,
      threads: true,
      latencyMs: 40,
      capabilities: { minEditIntervalMs: 1000, nativeStream: true, typingIntervalMs: 4000 },
    });
    instrumentAdapter(adapter, metrics);
    const outbox = createOutbox({ adapters: [adapter], clock });
    adapter.rateLimitNext(2000, { ops: 'updateStream' });
    outbox.startTyping('test:1');
    const reply = outbox.stream('test:1');
    for (const word of ['One ', 'two ', 'three ', 'four.']) {
      reply.append(word);
      await clock.advance(1200);
    }
    outbox.stopTyping('test:1');
    const done = reply.finish();
    await clock.advanceUntil(() => adapter.ops.some((o) => o.op === 'finishStream' && o.ok));
    const { messageIds } = await done;
    const note = outbox.send('test:1', 'A note.');
    await clock.advanceUntil(() => adapter.chatMessages('test:1').length === 2);
    const [noteId] = await note;
    const gone = outbox.delete('test:1', noteId!);
    await clock.advanceUntil(() => adapter.ops.some((o) => o.op === 'delete'));
    await gone;
    const thread = adapter.openThread('test:1', 'Working beside the chat.');
    await clock.advance(100);
    await thread;

    const expected: Record<string, number> = { 'openThread/ok': 1 };
    for (const op of adapter.ops) {
      const key = `${op.op}/${op.ok ? 'ok' : op.error === 'RATE_LIMITED' ? 'rate_limited' : 'error'}`;
      expected[key] = (expected[key] ?? 0) + 1;
    }
    expect(messageIds).toHaveLength(1);
    expect(expected).toMatchObject({
      'startStream/ok': 1,
      'updateStream/rate_limited': 1,
      'finishStream/ok': 1,
      'typing/ok': expect.any(Number),
      'send/ok': 2,
      'delete/ok': 1,
    });
    expect(await platformCalls(metrics, 'test')).toEqual(expected);
  });
});
