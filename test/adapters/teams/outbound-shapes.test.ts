/**
 * What the adapter puts on the wire and how it reads failures, as pure
 * functions: messages and Adaptive Card buttons, stream entities, the
 * Bot Connector's errors, the invoke deadline of a press.
 */
import { describe, expect, it } from 'vitest';
import { BUTTON_VERB, messageContent, pressedPayload } from '../../../adapters/teams/buttons.js';
import { capabilitiesOf, TEAMS_DEFAULT_PACES } from '../../../adapters/teams/capabilities.js';
import { retryAfterMs, toSwitchboardError } from '../../../adapters/teams/errors.js';
import { teamsMarkdown } from '../../../adapters/teams/markdown.js';
import { cardActionResponse, pendingPress } from '../../../adapters/teams/presses.js';
import { sdkLine } from '../../../adapters/teams/sdk-logger.js';
import { streamInfo } from '../../../adapters/teams/stream.js';
import { plain } from '../../../src/bot/format/dialect.js';
import { VirtualClock } from '../../../src/clock.js';
import { RateLimitError } from '../../../src/errors.js';

const httpError = (status: number, data?: unknown, headers: Record<string, unknown> = {}) =>
  Object.assign(new Error(`Request failed with status code ${status}`), {
    isAxiosError: true,
    response: { status, headers, data },
  });

describe('messages and buttons', () => {
  it('sends Markdown text, with the buttons as Action.Execute actions in a card, one ActionSet a row', () => {
    const content = messageContent({
      text: '**Run** `ls`?',
      format: teamsMarkdown,
      buttons: [
        [
          { label: 'Allow', payload: 'a:1', style: 'primary' },
          { label: 'Deny', payload: 'd:1', style: 'danger' },
        ],
        [{ label: 'Stop', payload: 'x:1' }],
      ],
    });
    expect(content).toMatchObject({ type: 'message', text: '**Run** `ls`?', textFormat: 'markdown' });
    const card = content.attachments[0]?.content as { version: string; body: { actions: unknown[] }[] };
    expect(content.attachments[0]?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.version).toBe('1.4');
    expect(card.body).toHaveLength(2);
    expect(card.body[0]?.actions[0]).toEqual({
      type: 'Action.Execute',
      title: 'Allow',
      verb: BUTTON_VERB,
      data: { payload: 'a:1' },
      style: 'positive',
    });
    expect(card.body[0]?.actions[1]).toMatchObject({ style: 'destructive' });
  });

  it('an edit with no buttons takes the old ones away; plain text is sent as plain', () => {
    expect(messageContent({ text: 'done', format: plain, buttons: [] })).toEqual({
      type: 'message',
      text: 'done',
      textFormat: 'plain',
      attachments: [],
    });
  });

  it('reads the payload back only from our own verb', () => {
    const press = (verb: string, data: unknown) => ({ action: { type: 'Action.Execute', verb, data } });
    expect(pressedPayload(press(BUTTON_VERB, { payload: 'a:1' }))).toBe('a:1');
    expect(pressedPayload(press('other', { payload: 'a:1' }))).toBeUndefined();
    expect(pressedPayload(press(BUTTON_VERB, {}))).toBeUndefined();
    expect(pressedPayload('junk')).toBeUndefined();
  });
});

describe('capabilities', () => {
  it('streams in personal chats only; channels and group chats are edited', () => {
    const personal = capabilitiesOf(TEAMS_DEFAULT_PACES, 'teams:a:1x');
    const thread = capabilitiesOf(TEAMS_DEFAULT_PACES, 'teams:19:c@thread.tacv2;messageid=1');
    const group = capabilitiesOf(TEAMS_DEFAULT_PACES, 'teams:19:g@thread.v2');
    expect(personal).toMatchObject({
      nativeStream: true,
      nativeStreamMaxMs: 100_000,
      minEditIntervalMs: 1500,
    });
    expect(thread.nativeStream).toBe(false);
    expect(group.nativeStream).toBe(false);
    expect(personal.maxUploadBytes).toBe(50 * 1024 * 1024);
    expect(thread.maxUploadBytes).toBeUndefined();
    expect(capabilitiesOf(TEAMS_DEFAULT_PACES, 'teams:a:1x', false).nativeStream).toBe(false);
    // Only the bot and the person see a personal chat.
    expect(personal).toMatchObject({ privateChat: true });
    expect(thread).not.toHaveProperty('privateChat');
  });
});

describe('streams', () => {
  it('numbers informative and streaming updates, and leaves the sequence off the final', () => {
    expect(streamInfo('informative', undefined, 1)).toEqual({
      type: 'streaminfo',
      streamType: 'informative',
      streamSequence: 1,
    });
    expect(streamInfo('streaming', 's1', 2)).toEqual({
      type: 'streaminfo',
      streamType: 'streaming',
      streamId: 's1',
      streamSequence: 2,
    });
    expect(streamInfo('final', 's1', undefined)).toEqual({
      type: 'streaminfo',
      streamType: 'final',
      streamId: 's1',
    });
  });
});

describe('errors', () => {
  it('429 is a chat-scoped RateLimitError with the Retry-After Teams sent', () => {
    const err = toSwitchboardError(httpError(429, undefined, { 'retry-after': '3' }), 'send');
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 3000, scope: 'chat' });
    expect(toSwitchboardError(httpError(429), 'edit').retryAfterMs).toBe(1000);
    expect(retryAfterMs(new Date(11_000).toUTCString(), 1000)).toBe(10_000);
  });

  it('maps too large, not found, refused formats, streams and credentials', () => {
    const code = (status: number, data?: unknown) => toSwitchboardError(httpError(status, data), 'x').code;
    expect(code(413, { error: { code: 'MessageSizeTooBig', message: 'too big' } })).toBe('MESSAGE_TOO_LONG');
    expect(code(404, { error: { code: 'ConversationNotFound', message: '' } })).toBe('NOT_FOUND');
    expect(code(400, { error: { code: 'BadArgument', message: 'bad card' } })).toBe('FORMAT_REJECTED');
    expect(
      code(403, {
        error: { code: 'ContentStreamNotAllowed', message: 'Content stream was cancelled by user.' },
      }),
    ).toBe('NOT_FOUND');
    expect(
      code(403, { error: { code: 'BadArgument', message: 'Content stream is not allowed on a message' } }),
    ).toBe('STREAM_UNAVAILABLE');
    expect(code(401)).toBe('PLATFORM_AUTH');
    expect(code(502)).toBe('PLATFORM_ERROR');
    expect(toSwitchboardError(Object.assign(new Error('timeout'), { code: 'ECONNABORTED' }), 'x').code).toBe(
      'PLATFORM_TIMEOUT',
    );
  });

  it('never lets a bearer token through to the log', () => {
    expect(sdkLine(['request failed', new Error('Authorization: Bearer eyJabc.def-ghi')])).toBe(
      'request failed Error: Authorization: Bearer [redacted]',
    );
    expect(sdkLine([{ headers: { authorization: 'Bearer secret' } }])).toBe('');
  });
});

describe('presses', () => {
  it('an answer in time is the invoke response', async () => {
    const clock = new VirtualClock();
    const late: string[] = [];
    const press = pendingPress(clock, 4000, async (t) => void late.push(t));
    const answer = press.answer();
    await press.respond({ text: 'Only the person who asked can answer this.', ephemeral: true });
    expect(cardActionResponse(await answer).body).toEqual({
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'Only the person who asked can answer this.',
    });
    expect(late).toEqual([]);
  });

  it('after the deadline the invoke is acknowledged; a late public answer goes to the chat, a private one does not', async () => {
    const clock = new VirtualClock();
    const late: string[] = [];
    const press = pendingPress(clock, 4000, async (t) => void late.push(t));
    const answer = press.answer();
    await clock.advance(4000);
    expect(await answer).toBeUndefined();
    await press.respond({ text: 'Allowed by Alice', ephemeral: false });
    await press.respond({ text: 'twice', ephemeral: false });
    expect(late).toEqual(['Allowed by Alice']);

    const other = pendingPress(clock, 4000, async (t) => void late.push(t));
    const otherAnswer = other.answer();
    await clock.advance(4000);
    await otherAnswer;
    await other.respond({ text: 'private', ephemeral: true });
    expect(late).toEqual(['Allowed by Alice']);
  });
});

describe('an upload’s deadline', () => {
  it('grows with the file: the call timeout plus a second per MiB, never below 15 s', async () => {
    const { uploadDeadlineMs } = await import('../../../adapters/teams/upload.js');
    expect(uploadDeadlineMs(15_000, 10)).toBe(16_000);
    expect(uploadDeadlineMs(1_000, 50 * 1024 * 1024)).toBe(65_000);
    expect(uploadDeadlineMs(30_000, 0)).toBe(30_000);
  });
});
