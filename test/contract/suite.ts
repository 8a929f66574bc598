/**
 * The adapter contract suite: what every chat adapter must do, checked
 * through its real SDK against its loopback fake. A platform runs it with
 * `contractSuite(harness)` (see harness.ts). What a platform cannot do it
 * names in `harness.cannot`; those tests are skipped with the reason in
 * their name, so a gap shows in every run instead of passing silently.
 *
 * The core relies on these: it splits at `maxMessageLength`, resends plain
 * after FORMAT_REJECTED, waits out a RateLimitError for its scope, keeps
 * button payloads within `buttonPayloadLimit`, answers every press once,
 * and sends to the chat key an event came with.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  ButtonEvent,
  ChatCapabilities,
  ChatEvent,
  MessageEvent,
  OutboundFile,
  OutboundMessage,
} from '../../src/bot/adapter-contract.js';
import { VirtualClock } from '../../src/clock.js';
import { RateLimitError, type RateLimitScope, SwitchboardError } from '../../src/errors.js';
import { type ContractPart, EventLog, type PlatformHarness, type PlatformRig } from './harness.js';

const isButton = (e: ChatEvent): e is ButtonEvent => e.type === 'button';
const isMessage = (e: ChatEvent): e is MessageEvent => e.type === 'message';

/** The error a call rejected with; fails the test when it resolved or threw something else. */
async function rejection(call: Promise<unknown>): Promise<SwitchboardError> {
  const outcome = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (outcome === undefined) throw new Error('the call succeeded; the contract wants it refused');
  expect(outcome).toBeInstanceOf(SwitchboardError);
  return outcome as SwitchboardError;
}

/** A document of `size` bytes, as the core hands it to `sendFile`. */
function document(name: string, size: number): OutboundFile {
  return {
    name,
    path: `/nonexistent/${name}`,
    bytes: new Uint8Array(size).fill(0x61),
    mediaType: 'application/octet-stream',
    kind: 'document',
  };
}

/** Declares the contract tests for one platform. */
export function contractSuite(harness: PlatformHarness): void {
  const { limits } = harness;
  /** `it`, or a skip that says why when the platform cannot do `part`. */
  const part = (name: ContractPart, title: string, body: () => Promise<void>) => {
    const reason = harness.cannot?.[name];
    if (reason === undefined) it(`${name}: ${title}`, body);
    else it.skip(`${name}: not on ${harness.name}: ${reason}`, body);
  };

  describe(`adapter contract: ${harness.name}`, () => {
    let rig: PlatformRig;
    /** The rig to close after the test; unset when its start failed (the harness cleaned up then). */
    let running: PlatformRig | undefined;
    let log: EventLog;
    let clock: VirtualClock;
    let caps: ChatCapabilities;
    /** A message in the chat's own dialect (no markup in it). */
    const say = (text: string): OutboundMessage => ({ text, format: caps.dialect });

    beforeEach(async () => {
      log = new EventLog();
      clock = new VirtualClock(Date.now());
      rig = await harness.start({ log, clock });
      running = rig;
      caps = rig.adapter.capabilities(rig.chat);
    });
    afterEach(async () => {
      await running?.close();
      running = undefined;
    });

    part('send', 'a message lands in the chat, in the chat’s dialect', async () => {
      const sent = await rig.adapter.send(rig.chat, say('contract: hello'));
      expect(sent.messageId).not.toBe('');
      expect(rig.botTexts()).toEqual(['contract: hello']);
      expect(rig.adapter.platform).toBe(rig.chat.split(':')[0]);
    });

    part(
      'edit',
      'an edit replaces the text in place; an edit of a deleted message is NOT_FOUND',
      async () => {
        const { messageId } = await rig.adapter.send(rig.chat, say('contract: before'));
        await rig.adapter.edit(rig.chat, messageId, say('contract: after'));
        expect(rig.botTexts()).toEqual(['contract: after']);
        const gone = await rig.adapter.send(rig.chat, say('contract: gone'));
        await rig.adapter.delete(rig.chat, gone.messageId);
        expect(
          (await rejection(rig.adapter.edit(rig.chat, gone.messageId, say('contract: ghost')))).code,
        ).toBe('NOT_FOUND');
        expect(rig.botTexts()).toEqual(['contract: after']);
      },
    );

    part('edit', 'an edit that changes nothing succeeds ("not modified" is success)', async () => {
      const { messageId } = await rig.adapter.send(rig.chat, say('contract: same'));
      await rig.adapter.edit(rig.chat, messageId, say('contract: same'));
      expect(rig.botTexts()).toEqual(['contract: same']);
    });

    part('delete', 'a deleted message is gone; deleting it again is success or NOT_FOUND', async () => {
      const keep = await rig.adapter.send(rig.chat, say('contract: keep'));
      const drop = await rig.adapter.send(rig.chat, say('contract: drop'));
      await rig.adapter.delete(rig.chat, drop.messageId);
      expect(rig.botTexts()).toEqual(['contract: keep']);
      const again = await rig.adapter.delete(rig.chat, drop.messageId).then(
        () => 'ok',
        (err: unknown) => (err instanceof SwitchboardError ? err.code : err),
      );
      expect(['ok', 'NOT_FOUND']).toContain(again);
      expect(keep.messageId).not.toBe(drop.messageId);
    });

    part('too-long', 'a message of exactly maxMessageLength characters is taken whole', async () => {
      const text = 'x'.repeat(caps.maxMessageLength);
      await rig.adapter.send(rig.chat, say(text));
      expect(rig.botTexts()).toEqual([text]);
    });

    part(
      'too-long',
      `over the platform's ${limits.messageLength.value} characters a send and an edit are MESSAGE_TOO_LONG`,
      async () => {
        const over = {
          text: 'y'.repeat(limits.messageLength.value + 1),
          format: limits.messageLength.format,
        };
        expect((await rejection(rig.adapter.send(rig.chat, over))).code).toBe('MESSAGE_TOO_LONG');
        const { messageId } = await rig.adapter.send(rig.chat, say('contract: short'));
        expect((await rejection(rig.adapter.edit(rig.chat, messageId, over))).code).toBe('MESSAGE_TOO_LONG');
        expect(rig.botTexts()).toEqual(['contract: short']);
      },
    );

    for (const scope of ['chat', 'global'] as const satisfies readonly RateLimitScope[]) {
      part(
        `rate-limit-${scope}`,
        `a 429 for ${scope === 'chat' ? 'one chat' : 'the whole bot'} is a RateLimitError with scope ${scope} and the wait`,
        async () => {
          const { messageId } = await rig.adapter.send(rig.chat, say('contract: before the limit'));
          const op = rig.rateLimitNext(scope, 2000);
          if (op === undefined)
            throw new Error(`${harness.name} declares no ${scope} 429 and does not say why`);
          const call =
            op === 'send'
              ? rig.adapter.send(rig.chat, say('contract: limited'))
              : rig.adapter.edit(rig.chat, messageId, say('contract: limited'));
          const err = await rejection(call);
          expect(err).toBeInstanceOf(RateLimitError);
          const limited = err as RateLimitError;
          expect(limited.code).toBe('RATE_LIMITED');
          expect(limited.scope).toBe(scope);
          // Some SDKs add a small safety offset to the server's wait; never less than it.
          expect(limited.retryAfterMs).toBeGreaterThanOrEqual(2000);
          expect(limited.retryAfterMs).toBeLessThan(3000);
          // The adapter never retried behind the core's back: the chat shows no change.
          expect(rig.botTexts()).toEqual(['contract: before the limit']);
        },
      );
    }

    part(
      'format-refused',
      'refused markup is FORMAT_REJECTED, and the plain resend shows as written',
      async () => {
        const refused = rig.refusedFormat?.();
        if (!refused) throw new Error(`${harness.name} has no refusedFormat and does not say why`);
        expect((await rejection(rig.adapter.send(rig.chat, refused))).code).toBe('FORMAT_REJECTED');
        expect(rig.botTexts()).toEqual([]);
        await rig.adapter.send(rig.chat, { text: refused.text, format: 'plain' });
        expect(rig.botTexts()).toEqual([refused.text]);
      },
    );

    part(
      'buttons',
      'a payload of exactly buttonPayloadLimit bytes comes back unchanged when pressed',
      async () => {
        const payload = `a:${'k'.repeat(caps.buttonPayloadLimit - 2)}`;
        const { messageId } = await rig.adapter.send(rig.chat, {
          ...say('contract: press me'),
          buttons: [[{ label: 'Press', payload }]],
        });
        await rig.press(messageId, payload);
        const event = await log.next(isButton);
        expect(event).toMatchObject({ chat: rig.chat, payload, messageId });
        await event.respond({ text: '' });
      },
    );

    part(
      'buttons-over-limit',
      'a payload one byte over buttonPayloadLimit is refused and nothing is sent',
      async () => {
        const payload = `a:${'k'.repeat(caps.buttonPayloadLimit - 1)}`;
        await rejection(
          rig.adapter.send(rig.chat, {
            ...say('contract: too big'),
            buttons: [[{ label: 'Press', payload }]],
          }),
        );
        expect(rig.botTexts()).toEqual([]);
      },
    );

    part(
      'buttons-on-edit',
      'an edit without buttons keeps them; an edit with [] takes them away',
      async () => {
        const buttons = [
          [
            { label: 'Allow', payload: 'a:contractkeep' },
            { label: 'Deny', payload: 'd:contractkeep' },
          ],
        ];
        const { messageId } = await rig.adapter.send(rig.chat, { ...say('contract: may I?'), buttons });
        expect(rig.buttonLabels(messageId)).toEqual(['Allow', 'Deny']);
        await rig.adapter.edit(rig.chat, messageId, say('contract: may I, still?'));
        expect(rig.buttonLabels(messageId)).toEqual(['Allow', 'Deny']);
        await rig.adapter.edit(rig.chat, messageId, { ...say('contract: allowed'), buttons: [] });
        expect(rig.buttonLabels(messageId)).toEqual([]);
        expect(rig.botTexts()).toEqual(['contract: allowed']);
      },
    );

    part('files', `a file of ${limits.upload.enforced} bytes is uploaded into the chat`, async () => {
      await rig.adapter.sendFile?.(rig.chat, document('contract.bin', limits.upload.enforced));
      expect(rig.adapter.sendFile).toBeDefined();
      expect(rig.files()).toEqual([{ name: 'contract.bin', size: limits.upload.enforced }]);
    });

    part('files', 'a file one byte over the limit is FILE_TOO_LARGE and nothing is shared', async () => {
      const sendFile = rig.adapter.sendFile?.bind(rig.adapter);
      if (!sendFile) throw new Error(`${harness.name} has no sendFile and does not say why`);
      const err = await rejection(sendFile(rig.chat, document('big.bin', limits.upload.enforced + 1)));
      expect(err.code).toBe('FILE_TOO_LARGE');
      expect(rig.files()).toEqual([]);
    });

    for (const place of harness.places) {
      part('chat-key', `a reply sent to the chat key of a message in a ${place} lands there`, async () => {
        const marker = `contract round trip in a ${place}`;
        const spot = await rig.say(place, marker);
        const event = await log.next((e): e is MessageEvent => isMessage(e) && e.text.includes(marker));
        expect(event.chat.startsWith(`${rig.adapter.platform}:`)).toBe(true);
        const reply = `answer in the ${place}`;
        await rig.adapter.send(event.chat, { text: reply, format: 'plain' });
        expect(spot.botTexts()).toContain(reply);
      });
    }

    part(
      'ack-deadline',
      `a press the core leaves unanswered is acknowledged within the platform's ${limits.ackDeadlineMs.value} ms`,
      async () => {
        const payload = 'a:contractack';
        const { messageId } = await rig.adapter.send(rig.chat, {
          ...say('contract: approve?'),
          buttons: [[{ label: 'Allow', payload }]],
        });
        const press = await rig.press(messageId, payload);
        await log.next(isButton);
        // The core is busy: time runs up to just before the platform gives up, on the adapter's clock.
        await clock.advance(limits.ackDeadlineMs.value - 1);
        await press.acknowledged();
      },
    );

    part('ack-answer', 'the core’s answer to a press reaches the person who pressed, once', async () => {
      const payload = 'a:contractanswer';
      const { messageId } = await rig.adapter.send(rig.chat, {
        ...say('contract: approve?'),
        buttons: [[{ label: 'Allow', payload }]],
      });
      const press = await rig.press(messageId, payload);
      const event = await log.next(isButton);
      await event.respond({ text: 'Allowed by contract' });
      await event.respond({ text: 'a second answer is ignored' });
      await press.acknowledged();
      await rig.until(() => press.shown().includes('Allowed by contract'), 'the answer shown to the presser');
      expect(press.shown()).toEqual(['Allowed by contract']);
    });

    part(
      'typing',
      'typing shows where typingIntervalMs says it lasts, and nothing where it is 0',
      async () => {
        const before = rig.typings();
        await rig.adapter.typing(rig.chat);
        if (caps.typingIntervalMs > 0) await rig.until(() => rig.typings() > before, 'a typing indicator');
        else expect(rig.typings()).toBe(before);
        expect(rig.botTexts()).toEqual([]);
      },
    );

    part('capabilities', 'the declared capabilities stay within what the fake enforces', async () => {
      expect(caps.maxMessageLength).toBeGreaterThan(0);
      expect(caps.maxMessageLength).toBeLessThanOrEqual(limits.messageLength.value);
      expect(caps.buttonPayloadLimit).toBeGreaterThan(2);
      expect(caps.buttonPayloadLimit).toBeLessThanOrEqual(limits.buttonPayloadBytes.value);
      expect(caps.minEditIntervalMs).toBeGreaterThanOrEqual(limits.editIntervalMs?.value ?? 0);
      if (limits.chatBudget) {
        const budget = caps.budget;
        expect(budget, 'a per-chat budget the fake enforces must be declared').toBeDefined();
        // No more calls per unit of time than the platform allows.
        expect((budget?.count ?? 0) * limits.chatBudget.windowMs).toBeLessThanOrEqual(
          limits.chatBudget.value * (budget?.windowMs ?? 0),
        );
      }
      if (caps.maxUploadBytes !== undefined) {
        expect(caps.maxUploadBytes).toBeLessThanOrEqual(limits.upload.documented.value);
        expect(limits.upload.enforced).toBeLessThanOrEqual(caps.maxUploadBytes);
      }
      expect(typeof rig.adapter.sendFile === 'function').toBe(caps.maxUploadBytes !== undefined);
      if (caps.nativeStream) {
        for (const method of ['startStream', 'updateStream', 'finishStream'] as const)
          expect(typeof rig.adapter[method], method).toBe('function');
      }
    });
  });
}
