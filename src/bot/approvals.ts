/**
 * Pending tool approvals: the one table of the permission requests that wait
 * in this process. Each request becomes a message with Allow / Allow for
 * this session / Deny buttons holding the request's short id. The person
 * whose message started the turn (unless self-approval is off for an
 * execute-class call), an admin or a named approver may answer.
 *
 * Who does what: the session owns the wait itself (its one timer ends it at
 * the request's deadline, `SWITCHBOARD_APPROVAL_TIMEOUT`, and a stopped turn
 * ends it); this registry holds the prompt, checks who may press, hands the
 * answer over through the request's own `answer`, keeps the durable record
 * (through the `hold` and `shown` calls), and learns from the request's
 * `settled` how every wait ended. Whatever happens, the message is edited
 * to say the outcome and who chose it, and the buttons go.
 * Questions a tool asks (MCP elicitation) go the same way, through the
 * same buttons, rules and timeout (see elicitations.ts).
 */
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PendingPermission, PermissionOutcome } from '../session/types.js';
import type { AccessPolicy } from './access.js';
import type { ButtonEvent } from './adapter-contract.js';
import { type ApprovalView, approvalView } from './approval-prompt.js';
import { approvalButtons, type ButtonAction, type ButtonPayload } from './buttons.js';
import { type QuestionInput, QuestionRegistry } from './elicitations.js';
import type { Requester } from './queued-message.js';
import type { Outbox } from './stream/types.js';
import { say } from './text.js';

/** What {@link ApprovalRegistry.open} needs. */
export interface ApprovalInput {
  chat: string;
  turnId: string;
  /** The session's request: its id goes on the buttons, its `answer` takes the press. */
  request: PendingPermission;
  requester: Requester;
  /** Told once the session took an answer, whoever gave it: the turn goes on. */
  resumed?: () => void;
  /** Told who answered, once the session took a person's answer. */
  onAnswered?: (answer: 'allow' | 'allow-session' | 'deny', by: Requester) => void;
  /**
   * Awaited before the prompt is shown: the session stores the waiting turn
   * with the prompt's id and requester, so a press reaches it in any
   * process. A failure is logged and the prompt shown anyway.
   */
  hold?: () => Promise<void>;
  /** Told the ids of the messages the prompt went out as. */
  shown?: (messageIds: string[]) => void;
  /** Lets go of the wait without answering it (shutdown); false when it cannot outlive the process. */
  suspend?: () => boolean;
}

interface Pending extends ApprovalInput {
  id: string;
  prompt: string;
  sent: Promise<string[]>;
}

/** Options for {@link ApprovalRegistry}. */
export interface ApprovalOptions {
  outbox: Outbox;
  access: AccessPolicy;
  /** The clock and timeout of tools' questions (a permission request brings its own deadline). */
  clock: Clock;
  timeoutMs: number;
  logger: Logger;
}

type Answer = 'allow' | 'allow-session' | 'deny';
/** The buttons of a tool's question. */
const QUESTION_ACTIONS = new Set<ButtonAction>(['pick', 'skip', 'decline', 'cancel']);

/** How many settled prompt ids are remembered, so a late second press is told apart from a forgotten prompt. */
const SETTLED_MEMORY = 1_000;

/** The open approval prompts of every chat. */
export class ApprovalRegistry {
  readonly #pending = new Map<string, Pending>();
  readonly #options: ApprovalOptions;
  readonly #edits = new Set<Promise<void>>();
  /** Recently settled ids, oldest first (a Set keeps insertion order). */
  readonly #settled = new Set<string>();
  readonly #questions: QuestionRegistry;

  constructor(options: ApprovalOptions) {
    this.#options = options;
    this.#questions = new QuestionRegistry({
      ...options,
      mayAnswer: (presser, requester) => this.#mayAnswer(presser, requester),
    });
  }

  /** Number of prompts and questions waiting for an answer. */
  get size(): number {
    return this.#pending.size + this.#questions.size;
  }

  /** True while the prompt or question with this short id waits for an answer here. */
  has(id: string): boolean {
    return this.#pending.has(id) || this.#questions.has(id);
  }

  /** True when the prompt or question with this id was answered, timed out or closed here recently. */
  settledHere(id: string): boolean {
    return this.#settled.has(id) || this.#questions.settledHere(id);
  }

  /** Puts a tool's question to the person who started the turn. */
  ask(input: QuestionInput): void {
    this.#questions.open(input);
  }

  /**
   * Takes a message as the answer to the question waiting for its sender
   * in that chat; false when none waits (it is then an ordinary message).
   */
  takeReply(chat: string, user: { key: string; name: string }, text: string, messageId?: string): boolean {
    return this.#questions.reply(chat, user.key, user.name, text, messageId);
  }

  /**
   * Posts the prompt for a waiting request; its buttons carry the request's
   * id, which is returned. The wait's end, whoever ends it, edits the prompt.
   */
  open(input: ApprovalInput): string {
    const { outbox, logger } = this.#options;
    const id = input.request.id;
    const view = approvalView(input.request, outbox.capabilities(input.chat).maxMessageLength);
    const prompt = view.prompt;
    const sent = this.#post(input, view, id);
    this.#pending.set(id, { ...input, id, prompt, sent });
    void input.request.settled.then((outcome) => this.#ended(id, outcome));
    logger.info({ chat: input.chat, approval: id, tool: input.request.toolName }, 'approval requested');
    return id;
  }

  /** Handles a press of one of the approval buttons; always responds exactly once. */
  async press(event: ButtonEvent, payload: ButtonPayload, presser: string): Promise<void> {
    if (QUESTION_ACTIONS.has(payload.action)) return this.#questions.press(event, payload, presser);
    const { access } = this.#options;
    const pending = this.#pending.get(payload.id);
    if (!pending || pending.chat !== event.chat || payload.action === 'stop') {
      await event.respond({ text: say.expired, ephemeral: true });
      return;
    }
    const { toolClass } = pending.request;
    if (!access.mayApprove(presser, pending.requester.key, toolClass)) {
      const refusal = access.needsSecondPerson(toolClass)
        ? say.approvalNotSelf
        : say.approvalOnlyFor(pending.requester.name);
      await event.respond({ text: refusal, ephemeral: true });
      return;
    }
    if (payload.action === 'always' || payload.action === 'prefix') {
      await event.respond({ text: say.expired, ephemeral: true });
      return;
    }
    const answer = payload.action as Answer;
    const outcome =
      answer === 'allow'
        ? say.allowed(event.user.name)
        : answer === 'allow-session'
          ? say.allowedSession(event.user.name)
          : say.denied(event.user.name);
    const accepted = this.#settle(payload.id, answer, outcome);
    if (accepted) pending.onAnswered?.(answer, { key: presser, name: event.user.name });
    await event.respond({ text: accepted ? say.answered[answer] : say.expired, ephemeral: true });
  }

  /** The request waiting under this id here, if any. */
  pending(id: string): Pick<ApprovalInput, 'chat' | 'request' | 'requester'> | undefined {
    return this.#pending.get(id);
  }

  /** Answers a prompt as a press would, with `outcome` on it; false when nothing waits for it any more. */
  answer(id: string, answer: Answer, outcome: string): boolean {
    return this.#settle(id, answer, outcome);
  }

  /** Denies every prompt and cancels every question of a turn that ended (stopped, failed). */
  closeTurn(turnId: string, outcome: string = say.deniedStopped): void {
    for (const pending of [...this.#pending.values()]) {
      if (pending.turnId === turnId) this.#settle(pending.id, 'deny', outcome, true);
    }
    this.#questions.closeTurn(turnId);
  }

  /**
   * Shutdown, before the turns stop: a prompt whose turn is stored as waiting
   * keeps its buttons, for the next process (or another replica) to answer.
   */
  leaveOpen(): void {
    for (const pending of [...this.#pending.values()]) {
      if (!pending.suspend?.()) continue;
      this.#pending.delete(pending.id);
      this.#options.logger.info({ chat: pending.chat, approval: pending.id }, 'approval left open');
    }
  }

  /** Denies every open prompt and cancels every question (shutdown). */
  closeAll(outcome: string): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, 'deny', outcome, true);
    this.#questions.closeAll(outcome);
  }

  /** Waits for the outcome edits still in flight. */
  async idle(): Promise<void> {
    while (this.#edits.size) await Promise.allSettled([...this.#edits]);
    await this.#questions.idle();
  }

  /** Only the person whose message started the turn, or an admin, answers for it. */
  #mayAnswer(presser: string, requester: Requester): boolean {
    const { access } = this.#options;
    return access.owns(presser, access.ownerKey(requester.key)) || access.isAdmin(presser);
  }

  /**
   * The session ended a wait itself (its deadline passed, or its turn
   * stopped): a prompt still showing says so.
   */
  #ended(id: string, outcome: PermissionOutcome): void {
    const pending = this.#take(id);
    if (!pending) return;
    const text = outcome === 'timeout' ? say.deniedTimeout : say.deniedStopped;
    this.#options.logger.info({ chat: pending.chat, approval: id, outcome }, 'approval ended by the session');
    this.#show(pending, text);
  }

  /**
   * Gives the answer to the session, then edits the prompt; false when the
   * session had moved on. `final` outcomes (stop, shutdown) are shown even
   * then: the request is denied either way, which is what they say.
   */
  #settle(id: string, answer: Answer, outcome: string, final = false): boolean {
    const pending = this.#take(id);
    if (!pending) return false;
    let accepted = false;
    try {
      accepted = pending.request.answer(answer);
    } catch (err) {
      this.#options.logger.error(
        { chat: pending.chat, err: describeError(err) },
        'resolving a permission failed',
      );
    }
    if (accepted) pending.resumed?.();
    this.#options.logger.info({ chat: pending.chat, approval: id, answer, accepted }, 'approval settled');
    this.#show(pending, accepted || final ? outcome : say.expired);
    return accepted;
  }

  /** Takes a prompt out of the table, remembering its id as settled here. */
  #take(id: string): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    this.#settled.add(id);
    if (this.#settled.size > SETTLED_MEMORY)
      this.#settled.delete(this.#settled.values().next().value as string);
    return pending;
  }

  /** Edits the prompt to say how it ended, its buttons gone. */
  #show(pending: Pending, outcome: string): void {
    const edit = this.#edit(pending, `${pending.prompt}\n\n${outcome}`);
    this.#edits.add(edit);
    void edit.finally(() => this.#edits.delete(edit));
  }

  /**
   * Sends the whole detail first when the prompt holds only a preview, then
   * the prompt as a reply to it, so the full text is one tap away.
   */
  async #post(input: ApprovalInput, view: ApprovalView, id: string): Promise<string[]> {
    const { outbox, logger } = this.#options;
    const { chat } = input;
    await input.hold?.().catch((err: unknown) => {
      logger.error(
        { chat, err: describeError(err) },
        'the waiting turn could not be stored; it ends with this process',
      );
    });
    let above: string | undefined;
    if (view.full !== undefined) {
      const ids = await outbox.send(chat, view.full).catch((err: unknown) => {
        logger.warn({ chat, err: describeError(err) }, 'the whole approval detail could not be sent');
        return [] as string[];
      });
      above = ids[0];
    }
    return outbox
      .send(chat, view.prompt, {
        buttons: approvalButtons(id),
        ...(above === undefined ? {} : { replyTo: above }),
      })
      .then(
        (ids) => {
          input.shown?.(ids);
          return ids;
        },
        (err: unknown) => {
          logger.error({ chat, err: describeError(err) }, 'approval prompt could not be sent');
          return [] as string[];
        },
      );
  }

  async #edit(pending: Pending, text: string): Promise<void> {
    const ids = await pending.sent;
    const last = ids.at(-1);
    if (last === undefined) return;
    try {
      await this.#options.outbox.edit(pending.chat, last, text, { buttons: [] });
    } catch (err) {
      this.#options.logger.warn(
        { chat: pending.chat, err: describeError(err) },
        'approval outcome edit failed',
      );
    }
  }
}
