/**
 * The contract's interaction parts: what a person does (write somewhere,
 * press a button) and what the core then relies on: the chat key leads back
 * to the same place, a button's payload comes back unchanged, every press is
 * acknowledged in time and answered once; and the capabilities the core
 * plans by stay within what the platform enforces.
 */
import { expect } from 'vitest';
import type {
  ButtonEvent,
  ChatEvent,
  CommandEvent,
  EditEvent,
  MessageEvent,
} from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import { rejection, type SuiteContext } from './suite-context.js';

const isButton = (e: ChatEvent): e is ButtonEvent => e.type === 'button';
const isMessage = (e: ChatEvent): e is MessageEvent => e.type === 'message';
const isCommand = (e: ChatEvent): e is CommandEvent => e.type === 'command';
const isEdit = (e: ChatEvent): e is EditEvent => e.type === 'edit';

/** Declares the interaction parts of the contract for the platform of `c`. */
export function interactionParts(c: SuiteContext): void {
  const { harness, part, say } = c;
  const { limits } = harness;

  part(
    'buttons',
    'a payload of exactly buttonPayloadLimit bytes comes back unchanged when pressed',
    async () => {
      const payload = `a:${'k'.repeat(c.caps.buttonPayloadLimit - 2)}`;
      const { messageId } = await c.rig.adapter.send(c.rig.chat, {
        ...say('contract: press me'),
        buttons: [[{ label: 'Press', payload }]],
      });
      await c.rig.press(messageId, payload);
      const event = await c.log.next(isButton);
      expect(event).toMatchObject({ chat: c.rig.chat, payload, messageId });
      await event.respond({ text: '' });
    },
  );

  part(
    'buttons-over-limit',
    'a payload one byte over buttonPayloadLimit is refused and nothing is sent',
    async () => {
      const payload = `a:${'k'.repeat(c.caps.buttonPayloadLimit - 1)}`;
      await rejection(
        c.rig.adapter.send(c.rig.chat, {
          ...say('contract: too big'),
          buttons: [[{ label: 'Press', payload }]],
        }),
      );
      expect(c.rig.botTexts()).toEqual([]);
    },
  );

  part('buttons-on-edit', 'an edit without buttons keeps them; an edit with [] takes them away', async () => {
    const buttons = [
      [
        { label: 'Allow', payload: 'a:contractkeep' },
        { label: 'Deny', payload: 'd:contractkeep' },
      ],
    ];
    const { messageId } = await c.rig.adapter.send(c.rig.chat, { ...say('contract: may I?'), buttons });
    expect(c.rig.buttonLabels(messageId)).toEqual(['Allow', 'Deny']);
    await c.rig.adapter.edit(c.rig.chat, messageId, say('contract: may I, still?'));
    expect(c.rig.buttonLabels(messageId)).toEqual(['Allow', 'Deny']);
    await c.rig.adapter.edit(c.rig.chat, messageId, { ...say('contract: allowed'), buttons: [] });
    expect(c.rig.buttonLabels(messageId)).toEqual([]);
    expect(c.rig.botTexts()).toEqual(['contract: allowed']);
  });

  for (const place of harness.places) {
    part('chat-key', `a reply sent to the chat key of a message in a ${place} lands there`, async () => {
      const marker = `contract round trip in a ${place}`;
      const spot = await c.rig.say(place, marker);
      const event = await c.log.next((e): e is MessageEvent => isMessage(e) && e.text.includes(marker));
      expect(event.chat.startsWith(`${c.rig.adapter.platform}:`)).toBe(true);
      const reply = `answer in the ${place}`;
      await c.rig.adapter.send(event.chat, { text: reply, format: plain });
      expect(spot.botTexts()).toContain(reply);
    });
  }

  part('edit-inbound', 'a person’s edit comes as an edit of the same message in the same chat', async () => {
    const place = harness.places[0] ?? '';
    const marker = `contract edit in a ${place}`;
    await c.rig.say(place, marker);
    const said = await c.log.next((e): e is MessageEvent => isMessage(e) && e.text.includes(marker));
    await c.rig.editLastSaid(`${marker}, edited`);
    const edit = await c.log.next(isEdit);
    expect(edit).toMatchObject({ chat: said.chat, messageId: said.messageId });
    expect(edit.text).toContain(`${marker}, edited`);
  });

  part(
    'command',
    'a command comes with its name, its arguments and the chat key of where it was run',
    async () => {
      await c.rig.command('compact', 'keep the names');
      const event = await c.log.next(isCommand);
      expect(event).toMatchObject({ name: 'compact', args: 'keep the names', chat: c.rig.chat });
    },
  );

  part(
    'command-ack',
    `a command the core answers late is acknowledged within the platform's ${limits.ackDeadlineMs.value} ms, and answered once`,
    async () => {
      const run = await c.rig.command('compact', 'keep the names');
      const event = await c.log.next(isCommand);
      await c.clock.advance(limits.ackDeadlineMs.value - 1);
      await run.acknowledged();
      const respond = event.respond;
      if (!respond) throw new Error('a command that must be acknowledged comes with respond');
      await respond({ text: 'Compacted by contract' });
      await respond({ text: 'a second answer is ignored' });
      await c.rig.until(
        () => run.shown().includes('Compacted by contract'),
        'the answer shown to the person',
      );
      expect(run.shown()).toEqual(['Compacted by contract']);
    },
  );

  part(
    'ack-deadline',
    `a press the core leaves unanswered is acknowledged within the platform's ${limits.ackDeadlineMs.value} ms`,
    async () => {
      const payload = 'a:contractack';
      const { messageId } = await c.rig.adapter.send(c.rig.chat, {
        ...say('contract: approve?'),
        buttons: [[{ label: 'Allow', payload }]],
      });
      const press = await c.rig.press(messageId, payload);
      await c.log.next(isButton);
      // The core is busy: time runs up to just before the platform gives up, on the adapter's clock.
      await c.clock.advance(limits.ackDeadlineMs.value - 1);
      await press.acknowledged();
    },
  );

  part('ack-answer', 'the core’s answer to a press reaches the person who pressed, once', async () => {
    const payload = 'a:contractanswer';
    const { messageId } = await c.rig.adapter.send(c.rig.chat, {
      ...say('contract: approve?'),
      buttons: [[{ label: 'Allow', payload }]],
    });
    const press = await c.rig.press(messageId, payload);
    const event = await c.log.next(isButton);
    await event.respond({ text: 'Allowed by contract' });
    await event.respond({ text: 'a second answer is ignored' });
    await press.acknowledged();
    await c.rig.until(() => press.shown().includes('Allowed by contract'), 'the answer shown to the presser');
    expect(press.shown()).toEqual(['Allowed by contract']);
  });

  part('typing', 'typing shows where typingIntervalMs says it lasts, and nothing where it is 0', async () => {
    const before = c.rig.typings();
    await c.rig.adapter.typing(c.rig.chat);
    if (c.caps.typingIntervalMs > 0) await c.rig.until(() => c.rig.typings() > before, 'a typing indicator');
    else expect(c.rig.typings()).toBe(before);
    expect(c.rig.botTexts()).toEqual([]);
  });

  part('capabilities', 'the declared capabilities stay within what the fake enforces', async () => {
    expect(c.caps.maxMessageLength).toBeGreaterThan(0);
    expect(c.caps.maxMessageLength).toBeLessThanOrEqual(limits.messageLength.value);
    expect(c.caps.buttonPayloadLimit).toBeGreaterThan(2);
    expect(c.caps.buttonPayloadLimit).toBeLessThanOrEqual(limits.buttonPayloadBytes.value);
    expect(c.caps.minEditIntervalMs).toBeGreaterThanOrEqual(limits.editIntervalMs?.value ?? 0);
    if (limits.chatBudget) {
      const budget = c.caps.budget;
      expect(budget, 'a per-chat budget the fake enforces must be declared').toBeDefined();
      // No more calls per unit of time than the platform allows.
      expect((budget?.count ?? 0) * limits.chatBudget.windowMs).toBeLessThanOrEqual(
        limits.chatBudget.value * (budget?.windowMs ?? 0),
      );
    }
    if (c.caps.maxUploadBytes !== undefined) {
      expect(c.caps.maxUploadBytes).toBeLessThanOrEqual(limits.upload.documented.value);
      expect(limits.upload.enforced).toBeLessThanOrEqual(c.caps.maxUploadBytes);
    }
    expect(typeof c.rig.adapter.sendFile === 'function').toBe(c.caps.maxUploadBytes !== undefined);
    if (c.caps.nativeStream) {
      for (const method of ['startStream', 'updateStream', 'finishStream'] as const)
        expect(typeof c.rig.adapter[method], method).toBe('function');
    }
  });
}
