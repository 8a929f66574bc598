/**
 * What a session is handed (a prompt with its author, images and files),
 * building history messages, and turning the history into what the model
 * sees: session notices left out, the cut-off notice after an interrupted
 * reply, and tool calls that never got a result answered as interrupted.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { ProviderMessage } from '../provider/types.js';
import type { Attachment } from '../vocabulary.js';
import { imageProblem } from './images.js';
import type { ContentBlock, HistoryMessage } from './types.js';

/** What `submit()` accepts: a prompt, or a prompt with its author, images and files. */
export type SubmitInput =
  | string
  | {
      text: string;
      /** Display name of the person who wrote it, in shared chats. */
      author?: string;
      images?: Array<{ mediaType: string; data: string }>;
      /**
       * Files sent with the prompt: saved under `uploads/` in the workspace
       * and described to the model (shown to it where it can read them).
       */
      files?: Attachment[];
    };

/** Told to the model in the request after an interrupted reply. */
export const CUT_OFF_NOTICE =
  '[Your previous reply was interrupted before it finished (the user stopped it, or the connection failed); the text above is all that was delivered. Do not assume the interrupted work was completed.]';

/** The result of a tool call that was not run (or not finished) because the turn was interrupted. */
export const INTERRUPTED_TOOL_RESULT =
  'interrupted: the user stopped the turn before this tool call finished';

/** Creates a history message with a fresh id and the clock's time. */
export function createMessage(
  role: HistoryMessage['role'],
  content: ContentBlock[],
  clock: Clock,
  extra: Partial<Pick<HistoryMessage, 'state' | 'kind' | 'author' | 'model' | 'stopReason'>> = {},
): HistoryMessage {
  return { id: randomUUID(), role, content, createdAt: new Date(clock.now()).toISOString(), ...extra };
}

/**
 * The user message for a submission; in shared chats the text starts with
 * `[Author]`. An image the API would refuse is replaced by a short note
 * (and listed in `refused`), so it can never lock the session.
 */
export function userMessage(
  input: SubmitInput,
  clock: Clock,
): { message: HistoryMessage; refused: string[] } {
  const { text, author, images } = typeof input === 'string' ? { text: input } : input;
  const content: ContentBlock[] = [];
  const refused: string[] = [];
  const prefixed = author ? `[${author}] ${text}` : text;
  if (prefixed.length > 0) content.push({ type: 'text', text: prefixed });
  (images ?? []).forEach((image, i) => {
    const problem = imageProblem(image.mediaType, image.data);
    if (problem === undefined) {
      content.push({ type: 'image', mediaType: image.mediaType, data: image.data });
      return;
    }
    const why = `Image ${i + 1} was not sent: ${problem}.`;
    refused.push(why);
    content.push({ type: 'text', text: `[${why}]` });
  });
  return { message: createMessage('user', content, clock, author ? { author } : {}), refused };
}

/** The text blocks of a message, joined. */
export function messageText(message: Pick<HistoryMessage, 'content'>): string {
  return message.content
    .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

function toolUseIds(content: readonly ContentBlock[]): string[] {
  return content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
}

function answeredIds(message: HistoryMessage | undefined): Set<string> {
  if (message?.role !== 'user') return new Set();
  return new Set(message.content.flatMap((b) => (b.type === 'tool_result' ? [b.toolUseId] : [])));
}

/** Puts text after any leading tool_result blocks (the API wants results first). */
function withNotice(content: readonly ContentBlock[], notice: string): ContentBlock[] {
  const results = content.filter((b) => b.type === 'tool_result');
  const rest = content.filter((b) => b.type !== 'tool_result');
  return [...results, { type: 'text', text: notice }, ...rest];
}

/** Told to the model after a reply that stopped at the output limit, so it goes on where it stopped. */
export const CONTINUE_NOTICE =
  '[Your previous reply reached the output token limit and was cut off there. Continue exactly where it stopped, without repeating what you already wrote.]';

/**
 * The history as provider messages. Consecutive messages of one role are
 * merged; session notices and withheld exchanges are left out; a user
 * message after an interrupted (or cut) reply carries a notice saying so;
 * unanswered tool calls (after an abort or a crash) get an interrupted
 * result so the request stays valid; a `context` message goes as a system
 * message. Thinking blocks go back byte for byte, but only to the model
 * that wrote them (`model`): they are bound to it.
 *
 * The result for a history is the result for any shorter history it grew
 * from, followed by what was appended (request n+1 begins with request n):
 * nothing here looks ahead of a message to decide how to send it, except a
 * tool call's missing result and the notice for the message after a cut
 * reply, both of which are settled by the time anything follows them.
 */
export function toProviderMessages(history: readonly HistoryMessage[], model?: string): ProviderMessage[] {
  const visible = history.filter((m) => m.kind !== 'notice' && m.withheld === undefined);
  const out: ProviderMessage[] = [];
  const push = (message: ProviderMessage) => {
    const last = out[out.length - 1];
    if (last && last.role === message.role) last.content = [...last.content, ...message.content];
    else out.push({ role: message.role, content: [...message.content] });
  };
  let notice: string | undefined;
  for (let i = 0; i < visible.length; i++) {
    const message = visible[i] as HistoryMessage;
    if (message.role === 'assistant') {
      const foreign = model !== undefined && message.model !== undefined && message.model !== model;
      // An abort before the first token leaves an empty reply: nothing to send, but still a cut-off.
      const content = message.content.filter(
        (b) =>
          (b.type !== 'text' || b.text.length > 0) &&
          !(foreign && (b.type === 'thinking' || b.type === 'redacted_thinking')),
      );
      if (content.length > 0) push({ role: 'assistant', content });
      const answered = answeredIds(visible[i + 1]);
      const missing = toolUseIds(message.content).filter((id) => !answered.has(id));
      if (missing.length > 0) {
        push({
          role: 'user',
          content: missing.map((id) => ({
            type: 'tool_result',
            toolUseId: id,
            content: INTERRUPTED_TOOL_RESULT,
            isError: true,
          })),
        });
      }
      if (message.state === 'interrupted') notice = CUT_OFF_NOTICE;
      else if (message.stopReason === 'max_tokens') notice = CONTINUE_NOTICE;
      else notice = undefined;
      continue;
    }
    if (message.kind === 'context') {
      // Said at the end, where it happened: the system and tools sent before it stay as they were.
      push({ role: 'system', content: message.content });
      continue;
    }
    // The continuation request is its own stored message: it carries the notice itself.
    const withCut = notice && message.kind !== 'continue';
    push({
      role: 'user',
      content: withCut ? withNotice(message.content, notice as string) : message.content,
    });
    notice = undefined;
  }
  return out;
}
