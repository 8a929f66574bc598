/**
 * Stored rules: what an admin chose to `Always allow` in a chat. A rule is a
 * tool and exactly these arguments, or for Bash a command prefix the admin
 * confirmed. They live in the controls store (a file, or PostgreSQL shared by
 * every replica), so they survive restarts and every replica reads the same
 * ones before it asks. Who made "allow for this session" grants, and when,
 * is noted there too, for `/rules`.
 */
import type { Clock } from '../clock.js';
import type { PermissionRequest } from '../session/types.js';
import type { ControlsStore } from '../store/controls.js';
import { shortId } from './buttons.js';

/** One stored rule. */
export interface StoredRule {
  id: string;
  chat: string;
  tool: string;
  /** Exactly these arguments, or (Bash) commands that start with this prefix. */
  match: { args: Record<string, unknown> } | { prefix: string };
  /** Who made it: their name and user key. */
  by: string;
  byKey: string;
  /** ISO time. */
  at: string;
}

/** Who made a session grant and when. */
export interface GrantNote {
  by: string;
  at: string;
}

/**
 * Characters that chain, substitute or redirect in a shell command: a
 * command holding any of them never matches a prefix rule, so `npm test`
 * cannot let `npm test; rm -rf ~` through.
 */
const SHELL_CONTROL = /[;&|`$()<>\n\r\\*?[\]{}!#~'"]/;

/** The prefixes offered for a Bash command: its first one, two and three words, and the whole command. */
export function commandPrefixes(command: string): string[] {
  const trimmed = command.trim();
  if (!trimmed || SHELL_CONTROL.test(trimmed)) return [];
  const words = trimmed.split(/\s+/);
  const out: string[] = [];
  for (let n = 1; n <= Math.min(3, words.length); n++) out.push(words.slice(0, n).join(' '));
  const whole = words.join(' ');
  if (!out.includes(whole)) out.push(whole);
  return out;
}

/** Whether `rule` covers the request. */
export function ruleMatches(
  rule: StoredRule,
  request: Pick<PermissionRequest, 'toolName' | 'toolArgs'>,
): boolean {
  if (rule.tool !== request.toolName) return false;
  if ('args' in rule.match) return canonical(rule.match.args) === canonical(request.toolArgs);
  const command = request.toolArgs.command;
  if (typeof command !== 'string' || SHELL_CONTROL.test(command)) return false;
  const words = command.trim().split(/\s+/).join(' ');
  return words === rule.match.prefix || words.startsWith(`${rule.match.prefix} `);
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same arguments. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** The chat's rules, read from and written to the controls store. */
export class Rules {
  readonly #store: ControlsStore;
  readonly #clock: Clock;

  constructor(store: ControlsStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** The chat's rules, oldest first. */
  async list(chat: string): Promise<StoredRule[]> {
    const entries = await this.#store.listSettings(`rule:${chat}:`);
    return entries.map(([, value]) => value).filter(isRule);
  }

  /** The first rule of the chat that covers the request, if any. */
  async match(chat: string, request: PermissionRequest): Promise<StoredRule | undefined> {
    return (await this.list(chat)).find((rule) => ruleMatches(rule, request));
  }

  /** Stores a new rule and returns it. */
  async add(
    chat: string,
    tool: string,
    match: StoredRule['match'],
    by: { key: string; name: string },
  ): Promise<StoredRule> {
    const rule: StoredRule = {
      // `r…`: never taken for a session grant's `g1`.
      id: `r${shortId().slice(-5)}`,
      chat,
      tool,
      match,
      by: by.name,
      byKey: by.key,
      at: new Date(this.#clock.now()).toISOString(),
    };
    await this.#store.setSetting(`rule:${chat}:${rule.id}`, rule);
    return rule;
  }

  /** Removes the chat's rule with this id; the rule, or undefined when there was none. */
  async revoke(chat: string, id: string): Promise<StoredRule | undefined> {
    const value = await this.#store.getSetting(`rule:${chat}:${id}`);
    if (!isRule(value)) return undefined;
    await this.#store.setSetting(`rule:${chat}:${id}`, undefined);
    return value;
  }

  /** Notes who made an "allow for this session" grant. */
  noteGrant(sessionId: string, scope: string, by: string): Promise<void> {
    const note: GrantNote = { by, at: new Date(this.#clock.now()).toISOString() };
    return this.#store.setSetting(`grant:${sessionId}:${scope}`, note);
  }

  /** Who made the session's grants and when, by scope (grants made before notes were kept have none). */
  async grantNotes(sessionId: string): Promise<Map<string, GrantNote>> {
    const prefix = `grant:${sessionId}:`;
    const notes = new Map<string, GrantNote>();
    for (const [key, value] of await this.#store.listSettings(prefix)) {
      const note = value as Partial<GrantNote>;
      if (typeof note?.by === 'string' && typeof note.at === 'string')
        notes.set(key.slice(prefix.length), { by: note.by, at: note.at });
    }
    return notes;
  }
}

function isRule(value: unknown): value is StoredRule {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<StoredRule>;
  return (
    typeof r.id === 'string' &&
    typeof r.tool === 'string' &&
    typeof r.by === 'string' &&
    typeof r.at === 'string' &&
    typeof r.match === 'object' &&
    r.match !== null
  );
}
