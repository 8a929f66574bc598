/**
 * Open questions from tools (MCP elicitation), asked the way approvals are:
 * one message in the chat, answered by the person who started the turn or
 * an admin, cancelled when nobody answers within the approval timeout or
 * the turn ends. The fields are asked one at a time in that message,
 * edited as it goes: options and yes/no as buttons, anything else as the
 * person's next message in the chat (checked against the field's schema,
 * asked again with the reason when it does not fit). Decline and Cancel
 * are on every step; the answer goes to the tool once the last field is in.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ElicitationAnswer, ElicitationField, ElicitationValue } from '../session/index.js';
import type { ElicitationRequest } from '../session/types.js';
import type { ButtonEvent } from './adapter-contract.js';
import { type ButtonPayload, shortId } from './buttons.js';
import {
  answeredLine,
  fieldButtons,
  fieldPrompt,
  parseAnswer,
  pickedValue,
  questionHeading,
} from './elicitation-fields.js';
import type { Requester } from './queued-message.js';
import type { Outbox } from './stream/types.js';
import { say } from './text.js';

/** What {@link QuestionRegistry.open} needs. */
export interface QuestionInput {
  chat: string;
  turnId: string;
  requester: Requester;
  request: ElicitationRequest;
}

/** Options for {@link QuestionRegistry}. */
export interface QuestionOptions {
  outbox: Outbox;
  clock: Clock;
  /** Each step is cancelled after this long without an answer (the approval timeout). */
  timeoutMs: number;
  logger: Logger;
  /** Whether `presser` may answer for `requester` (themself or an admin). */
  mayAnswer: (presser: string, requester: Requester) => boolean;
}

interface Open extends QuestionInput {
  stepId: string;
  index: number;
  values: Record<string, ElicitationValue>;
  answered: string[];
  sent: Promise<string[]>;
  /** The last edit of the message: edits wait for each other, so the newest text is the one that stays. */
  shown: Promise<void>;
  timer: TimerHandle | undefined;
}

/** What the message says once the question is over. */
const OUTCOME = {
  accept: (name: string) => `✅ Answered by ${name}`,
  decline: (name: string) => `🚫 Declined by ${name}`,
  cancel: (name: string) => `⏹ Cancelled by ${name}`,
  timeout: '⏹ Cancelled: no answer in time',
  stopped: '⏹ Cancelled: the reply was stopped',
};
const PRESSED = { accept: 'Sent.', decline: 'Declined.', cancel: 'Cancelled.', next: 'Noted.' };
const SETTLED_MEMORY = 1_000;

/** The open questions of every chat, keyed by the short id of their current step. */
export class QuestionRegistry {
  readonly #open = new Map<string, Open>();
  readonly #settled = new Set<string>();
  readonly #edits = new Set<Promise<void>>();
  readonly #options: QuestionOptions;

  constructor(options: QuestionOptions) {
    this.#options = options;
  }

  /** Number of questions waiting for an answer. */
  get size(): number {
    return this.#open.size;
  }

  /** True while the step a button id belongs to waits here. */
  has(id: string): boolean {
    return this.#open.has(stepOf(id));
  }

  /** True when the step a button id belongs to was answered or closed here recently. */
  settledHere(id: string): boolean {
    return this.#settled.has(stepOf(id));
  }

  /** Posts the question's first field (or, with none, Accept / Decline / Cancel) and starts its timeout. */
  open(input: QuestionInput): void {
    const open: Open = {
      ...input,
      stepId: '',
      index: 0,
      values: {},
      answered: [],
      sent: Promise.resolve([]),
      shown: Promise.resolve(),
      timer: undefined,
    };
    this.#step(open, true);
    this.#options.logger.info(
      { chat: input.chat, tool: input.request.toolName, fields: input.request.question.fields.length },
      'question asked',
    );
  }

  /** Handles a press of a question's button; always responds exactly once. */
  async press(event: ButtonEvent, payload: ButtonPayload, presser: string): Promise<void> {
    const open = this.#open.get(stepOf(payload.id));
    if (!open || open.chat !== event.chat) return event.respond({ text: say.expired, ephemeral: true });
    if (!this.#options.mayAnswer(presser, open.requester))
      return event.respond({ text: say.approvalOnlyFor(open.requester.name), ephemeral: true });
    const name = event.user.name;
    const field = open.request.question.fields[open.index];
    let outcome: boolean | 'next';
    let said: string;
    if (payload.action === 'decline' || payload.action === 'cancel') {
      outcome = this.#settle(open, { action: payload.action }, OUTCOME[payload.action](name));
      said = PRESSED[payload.action];
    } else if (!field) {
      outcome = this.#settle(open, { action: 'accept', content: {} }, OUTCOME.accept(name));
      said = PRESSED.accept;
    } else {
      const value =
        payload.action === 'skip'
          ? field.default
          : pickedValue(field, Number.parseInt(payload.id.slice(STEP_ID_LENGTH), 36));
      if (payload.action === 'pick' && value === undefined)
        return event.respond({ text: say.expired, ephemeral: true });
      outcome = this.#fill(open, field, value, name);
      said = outcome === 'next' ? PRESSED.next : PRESSED.accept;
    }
    // The tool had stopped waiting (its call ended): the press changed nothing.
    await event.respond({ text: outcome === false ? say.expired : said, ephemeral: true });
  }

  /**
   * Takes a person's message as the answer to the field their question
   * asks in that chat; false when no question there waits for them (the
   * message is then an ordinary one). A message that does not fit is
   * answered with why, and the field is asked again.
   */
  reply(chat: string, user: string, userName: string, text: string, messageId?: string): boolean {
    const open = [...this.#open.values()].find(
      (o) => o.chat === chat && this.#options.mayAnswer(user, o.requester),
    );
    const field = open?.request.question.fields[open.index];
    if (!open || !field) return false;
    const parsed = parseAnswer(field, text);
    if ('reason' in parsed) {
      const again = `⚠️ ${parsed.reason} ${field.label}: please answer again, or press Decline or Cancel.`;
      const sent = this.#options.outbox.send(chat, again, {
        plain: true,
        ...(messageId === undefined ? {} : { replyTo: messageId }),
      });
      this.#track(sent.then(() => undefined));
      return true;
    }
    this.#fill(open, field, parsed.value, userName);
    return true;
  }

  /** Cancels every question of a turn that ended. */
  closeTurn(turnId: string): void {
    for (const open of [...this.#open.values()])
      if (open.turnId === turnId) this.#settle(open, { action: 'cancel' }, OUTCOME.stopped, true);
  }

  /** Cancels every open question (shutdown). */
  closeAll(outcome: string): void {
    for (const open of [...this.#open.values()]) this.#settle(open, { action: 'cancel' }, outcome, true);
  }

  /** Waits for the edits still in flight. */
  async idle(): Promise<void> {
    while (this.#edits.size) await Promise.allSettled([...this.#edits]);
  }

  /**
   * Records one field's answer and moves on: `next` when another field
   * follows, else whether the tool took the answers.
   */
  #fill(
    open: Open,
    field: ElicitationField,
    value: ElicitationValue | undefined,
    name: string,
  ): boolean | 'next' {
    if (value !== undefined) open.values[field.name] = value;
    open.answered.push(answeredLine(field, value));
    open.index++;
    if (open.index < open.request.question.fields.length) {
      this.#step(open, false);
      return 'next';
    }
    return this.#settle(open, { action: 'accept', content: open.values }, OUTCOME.accept(name));
  }

  /** Shows the current field (a new message first, then edits of it) under a new step id. */
  #step(open: Open, first: boolean): void {
    const { outbox, clock, timeoutMs, logger } = this.#options;
    if (!first) this.#forget(open);
    open.stepId = shortId();
    const { question } = open.request;
    const text = fieldPrompt(question, open.index, open.answered, open.requester.name);
    const buttons = fieldButtons(question.fields[open.index], open.stepId);
    if (first)
      open.sent = outbox.send(open.chat, text, { plain: true, buttons }).catch((err: unknown) => {
        logger.error({ chat: open.chat, err: describeError(err) }, 'question could not be sent');
        return [] as string[];
      });
    else this.#edit(open, text, buttons);
    open.timer = clock.setTimeout(
      () => this.#settle(open, { action: 'cancel' }, OUTCOME.timeout, true),
      timeoutMs,
    );
    this.#open.set(open.stepId, open);
  }

  /** Gives the answer to the tool and edits the message to say how it ended; false when the tool no longer waited. */
  #settle(open: Open, answer: ElicitationAnswer, outcome: string, final = false): boolean {
    if (this.#open.get(open.stepId) !== open) return false;
    this.#forget(open);
    let accepted = false;
    try {
      accepted = open.request.answer(answer);
    } catch (err) {
      this.#options.logger.error({ chat: open.chat, err: describeError(err) }, 'answering a question failed');
    }
    this.#options.logger.info({ chat: open.chat, action: answer.action, accepted }, 'question settled');
    const { question } = open.request;
    const lines = [questionHeading(question, open.requester.name, 'asked')];
    for (const line of answer.action === 'accept' ? open.answered : []) lines.push(`✓ ${line}`);
    lines.push('', accepted || final ? outcome : say.expired);
    this.#edit(open, lines.join('\n'), []);
    return accepted;
  }

  /** Closes the current step: its buttons now find nothing, and are told so. */
  #forget(open: Open): void {
    this.#open.delete(open.stepId);
    if (open.timer !== undefined) this.#options.clock.clearTimeout(open.timer);
    open.timer = undefined;
    this.#settled.add(open.stepId);
    if (this.#settled.size > SETTLED_MEMORY)
      this.#settled.delete(this.#settled.values().next().value as string);
  }

  /** Edits the question's message after the edits before it. */
  #edit(open: Open, text: string, buttons: ReturnType<typeof fieldButtons>): void {
    const { outbox, logger } = this.#options;
    open.shown = open.shown.then(async () => {
      const last = (await open.sent).at(-1);
      if (last === undefined) return;
      await outbox
        .edit(open.chat, last, text, { plain: true, buttons })
        .catch((err: unknown) =>
          logger.warn({ chat: open.chat, err: describeError(err) }, 'question edit failed'),
        );
    });
    this.#track(open.shown);
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined);
    this.#edits.add(tracked);
    void tracked.finally(() => this.#edits.delete(tracked));
  }
}

/** Length of a step's short id; a pick button's id adds the option's index after it. */
const STEP_ID_LENGTH = 10;

function stepOf(id: string): string {
  return id.slice(0, STEP_ID_LENGTH);
}
