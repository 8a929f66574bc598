/**
 * The contract's message parts: what the core's outbox relies on when it
 * sends, edits and deletes messages and uploads files, and the errors it
 * acts on (MESSAGE_TOO_LONG: split; RATE_LIMITED: wait for the scope;
 * FORMAT_REJECTED: resend plain; FILE_TOO_LARGE: say so).
 */
import { expect } from 'vitest';
import { plain } from '../../src/bot/format/dialect.js';
import { RateLimitError, type RateLimitScope, SwitchboardError } from '../../src/errors.js';
import { document, rejection, type SuiteContext } from './suite-context.js';

/** Declares the message parts of the contract for the platform of `c`. */
export function messageParts(c: SuiteContext): void {
  const { harness, part, say } = c;
  const { limits } = harness;

  part('send', 'a message lands in the chat, in the chat’s dialect', async () => {
    const sent = await c.rig.adapter.send(c.rig.chat, say('contract: hello'));
    expect(sent.messageId).not.toBe('');
    expect(c.rig.botTexts()).toEqual(['contract: hello']);
    expect(c.rig.adapter.platform).toBe(c.rig.chat.split(':')[0]);
  });

  part('edit', 'an edit replaces the text in place; an edit of a deleted message is NOT_FOUND', async () => {
    const { messageId } = await c.rig.adapter.send(c.rig.chat, say('contract: before'));
    await c.rig.adapter.edit(c.rig.chat, messageId, say('contract: after'));
    expect(c.rig.botTexts()).toEqual(['contract: after']);
    const gone = await c.rig.adapter.send(c.rig.chat, say('contract: gone'));
    await c.rig.adapter.delete(c.rig.chat, gone.messageId);
    expect(
      (await rejection(c.rig.adapter.edit(c.rig.chat, gone.messageId, say('contract: ghost')))).code,
    ).toBe('NOT_FOUND');
    expect(c.rig.botTexts()).toEqual(['contract: after']);
  });

  part('edit', 'an edit that changes nothing succeeds ("not modified" is success)', async () => {
    const { messageId } = await c.rig.adapter.send(c.rig.chat, say('contract: same'));
    await c.rig.adapter.edit(c.rig.chat, messageId, say('contract: same'));
    expect(c.rig.botTexts()).toEqual(['contract: same']);
  });

  part('delete', 'a deleted message is gone; deleting it again is success or NOT_FOUND', async () => {
    const keep = await c.rig.adapter.send(c.rig.chat, say('contract: keep'));
    const drop = await c.rig.adapter.send(c.rig.chat, say('contract: drop'));
    await c.rig.adapter.delete(c.rig.chat, drop.messageId);
    expect(c.rig.botTexts()).toEqual(['contract: keep']);
    const again = await c.rig.adapter.delete(c.rig.chat, drop.messageId).then(
      () => 'ok',
      (err: unknown) => (err instanceof SwitchboardError ? err.code : err),
    );
    expect(['ok', 'NOT_FOUND']).toContain(again);
    expect(keep.messageId).not.toBe(drop.messageId);
  });

  part('too-long', 'a message of exactly maxMessageLength characters is taken whole', async () => {
    const text = 'x'.repeat(c.caps.maxMessageLength);
    await c.rig.adapter.send(c.rig.chat, say(text));
    expect(c.rig.botTexts()).toEqual([text]);
  });

  part(
    'too-long',
    `over the platform's ${limits.messageLength.value} characters a send and an edit are MESSAGE_TOO_LONG`,
    async () => {
      const over = {
        text: 'y'.repeat(limits.messageLength.value + 1),
        format: limits.messageLength.format,
      };
      expect((await rejection(c.rig.adapter.send(c.rig.chat, over))).code).toBe('MESSAGE_TOO_LONG');
      const { messageId } = await c.rig.adapter.send(c.rig.chat, say('contract: short'));
      expect((await rejection(c.rig.adapter.edit(c.rig.chat, messageId, over))).code).toBe(
        'MESSAGE_TOO_LONG',
      );
      expect(c.rig.botTexts()).toEqual(['contract: short']);
    },
  );

  for (const scope of ['chat', 'global'] as const satisfies readonly RateLimitScope[]) {
    part(
      `rate-limit-${scope}`,
      `a 429 for ${scope === 'chat' ? 'one chat' : 'the whole bot'} is a RateLimitError with scope ${scope} and the wait`,
      async () => {
        const { messageId } = await c.rig.adapter.send(c.rig.chat, say('contract: before the limit'));
        const op = c.rig.rateLimitNext(scope, 2000);
        if (op === undefined)
          throw new Error(`${harness.name} declares no ${scope} 429 and does not say why`);
        const call =
          op === 'send'
            ? c.rig.adapter.send(c.rig.chat, say('contract: limited'))
            : c.rig.adapter.edit(c.rig.chat, messageId, say('contract: limited'));
        const err = await rejection(call);
        expect(err).toBeInstanceOf(RateLimitError);
        const limited = err as RateLimitError;
        expect(limited.code).toBe('RATE_LIMITED');
        expect(limited.scope).toBe(scope);
        // Some SDKs add a small safety offset to the server's wait; never less than it.
        expect(limited.retryAfterMs).toBeGreaterThanOrEqual(2000);
        expect(limited.retryAfterMs).toBeLessThan(3000);
        // The adapter never retried behind the core's back: the chat shows no change.
        expect(c.rig.botTexts()).toEqual(['contract: before the limit']);
      },
    );
  }

  part(
    'format-refused',
    'refused markup is FORMAT_REJECTED, and the plain resend shows as written',
    async () => {
      const refused = c.rig.refusedFormat?.();
      if (!refused) throw new Error(`${harness.name} has no refusedFormat and does not say why`);
      expect((await rejection(c.rig.adapter.send(c.rig.chat, refused))).code).toBe('FORMAT_REJECTED');
      expect(c.rig.botTexts()).toEqual([]);
      await c.rig.adapter.send(c.rig.chat, { text: refused.text, format: plain });
      expect(c.rig.botTexts()).toEqual([refused.text]);
    },
  );

  part('files', `a file of ${limits.upload.enforced} bytes is uploaded into the chat`, async () => {
    await c.rig.adapter.sendFile?.(c.rig.chat, document('contract.bin', limits.upload.enforced));
    expect(c.rig.adapter.sendFile).toBeDefined();
    expect(c.rig.files()).toEqual([{ name: 'contract.bin', size: limits.upload.enforced }]);
  });

  part('files', 'a file one byte over the limit is FILE_TOO_LARGE and nothing is shared', async () => {
    const sendFile = c.rig.adapter.sendFile?.bind(c.rig.adapter);
    if (!sendFile) throw new Error(`${harness.name} has no sendFile and does not say why`);
    const err = await rejection(sendFile(c.rig.chat, document('big.bin', limits.upload.enforced + 1)));
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(c.rig.files()).toEqual([]);
  });
}
