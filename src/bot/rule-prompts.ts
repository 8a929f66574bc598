/**
 * The `Always allow` button of an approval prompt, for admins: it stores a
 * rule for the chat and allows the call. For most tools the rule is the tool
 * with exactly these arguments. For a Bash command the admin first confirms
 * how much of it the rule covers: a message offers the command's first
 * words and the whole command as buttons (a command that chains, redirects
 * or substitutes is only ever allowed whole, by its exact arguments).
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AccessPolicy } from './access.js';
import type { ButtonEvent } from './adapter-contract.js';
import type { ApprovalRegistry } from './approvals.js';
import type { Background } from './background.js';
import { type ButtonPayload, encodeButton, shortId } from './buttons.js';
import { markdownInlineCode } from './format/syntax.js';
import { commandPrefixes, type Rules, type StoredRule } from './rules.js';
import type { Outbox } from './stream/types.js';
import { say } from './text.js';

/** Options of {@link RulePrompts}. */
export interface RulePromptOptions {
  approvals: ApprovalRegistry;
  rules: Rules;
  access: AccessPolicy;
  outbox: Outbox;
  background: Background;
  logger: Logger;
}

/** A prefix offered for a Bash rule; `prefix` undefined is the Cancel button. */
interface Choice {
  approvalId: string;
  chat: string;
  tool: string;
  prefix?: string;
}

/** Discord's button labels hold 80 characters: longer prefixes are shown cut (the rule keeps them whole). */
const LABEL_MAX = 80;

/** Presses of `Always allow` and of the prefix choices that follow it on Bash. */
export class RulePrompts {
  readonly #o: RulePromptOptions;
  readonly #choices = new Map<string, Choice>();

  constructor(options: RulePromptOptions) {
    this.#o = options;
  }

  /** True while the prefix choice with this id waits here. */
  has(id: string): boolean {
    return this.#choices.has(id);
  }

  /** Handles `Always allow` (`always`) or a prefix choice (`prefix`); responds exactly once. */
  async press(event: ButtonEvent, payload: ButtonPayload, presser: string): Promise<void> {
    const respond = (text: string) => event.respond({ text, ephemeral: true });
    if (payload.action === 'prefix') return this.#choose(event, payload.id, presser);
    const pending = this.#o.approvals.pending(payload.id);
    if (!pending || pending.chat !== event.chat) return respond(say.expired);
    if (!this.#o.access.isAdmin(presser)) return respond(say.ruleAdminOnly);
    const { request } = pending;
    const command = request.toolName === 'Bash' ? request.toolArgs.command : undefined;
    const prefixes = typeof command === 'string' ? commandPrefixes(command) : [];
    if (prefixes.length > 0) {
      this.#offer(event.chat, payload.id, request.toolName, prefixes);
      return respond(say.rulePrefixChoose);
    }
    const rule = await this.#store(event, payload.id, request.toolName, { args: request.toolArgs }, presser);
    return respond(say.ruleStored(rule.id));
  }

  /** Stores the rule the presser chose and allows the call waiting under `approvalId` with it. */
  async #store(
    event: ButtonEvent,
    approvalId: string,
    tool: string,
    match: StoredRule['match'],
    presser: string,
  ): Promise<StoredRule> {
    const rule = await this.#o.rules.add(event.chat, tool, match, { key: presser, name: event.user.name });
    this.#o.approvals.answer(approvalId, 'allow', say.alwaysAllowed(event.user.name, rule.id));
    return rule;
  }

  /** Posts the prefix choices for a Bash rule. */
  #offer(chat: string, approvalId: string, tool: string, prefixes: string[]): void {
    // A second press of Always allow on the same prompt replaces the first set of choices.
    for (const [id, c] of this.#choices) if (c.approvalId === approvalId) this.#choices.delete(id);
    const row = (prefix: string | undefined) => {
      const id = shortId();
      this.#choices.set(id, { approvalId, chat, tool, ...(prefix === undefined ? {} : { prefix }) });
      const label = prefix === undefined ? 'Cancel' : cut(prefix);
      return [
        {
          label,
          payload: encodeButton('prefix', id),
          ...(prefix === undefined ? { style: 'danger' as const } : {}),
        },
      ];
    };
    const buttons = [...prefixes.map(row), row(undefined)];
    const sent = this.#o.outbox.send(chat, say.rulePrefixAsk, { buttons });
    this.#o.background.track(sent, 'rule prefix choice');
  }

  async #choose(event: ButtonEvent, id: string, presser: string): Promise<void> {
    const respond = (text: string) => event.respond({ text, ephemeral: true });
    const choice = this.#choices.get(id);
    if (!choice || choice.chat !== event.chat) return respond(say.expired);
    if (!this.#o.access.isAdmin(presser)) return respond(say.ruleAdminOnly);
    for (const [other, c] of this.#choices)
      if (c.approvalId === choice.approvalId) this.#choices.delete(other);
    let line: string;
    let answer: string;
    if (choice.prefix === undefined) {
      line = say.rulePrefixCancelled;
      answer = say.rulePrefixCancelled;
    } else {
      const rule = await this.#store(
        event,
        choice.approvalId,
        choice.tool,
        { prefix: choice.prefix },
        presser,
      );
      line = say.rulePrefixStored(rule.id, markdownInlineCode(choice.prefix));
      answer = say.ruleStored(rule.id);
    }
    if (event.messageId !== undefined) {
      const edit = this.#o.outbox
        .edit(event.chat, event.messageId, line, { buttons: [] })
        .catch((err: unknown) => {
          this.#o.logger.warn({ chat: event.chat, err: describeError(err) }, 'rule choice edit failed');
        });
      this.#o.background.track(edit, 'rule choice edit');
    }
    return respond(answer);
  }
}

function cut(text: string): string {
  return text.length <= LABEL_MAX ? text : `${text.slice(0, LABEL_MAX - 1)}…`;
}
