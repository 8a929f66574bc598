/**
 * Who may use the bot, who owns what, and who is an admin. Users are
 * `platform:userId` strings; linked identities (`alice` = `telegram:1`,
 * `slack:U1`) are one person, so they share sessions and approvals.
 */

/** Options for {@link AccessPolicy}. */
export interface AccessOptions {
  /** `platform:userId` entries; empty or absent means no one is allowed yet. */
  allowedUsers?: readonly string[] | undefined;
  /** `platform:userId` entries that may answer any approval, see every session and use bypassPermissions. */
  admins?: readonly string[] | undefined;
  /** `platform:userId` entries that may answer any approval prompt, besides the requester and admins. */
  approvers?: readonly string[] | undefined;
  /**
   * Whether the person whose message started a turn may approve its
   * execute-class calls (Bash) themselves; default true. When false an admin
   * or an approver must.
   */
  selfApproval?: boolean | undefined;
  /** Person -> their ids on several platforms. */
  linkedUsers?: Readonly<Record<string, readonly string[]>> | undefined;
  /**
   * Platforms whose users are always allowed: the terminal chat's user is
   * the local operator, who already has the machine (the ready bot passes
   * its fallback platforms). Default none.
   */
  trustedPlatforms?: readonly string[] | undefined;
}

/** The result of {@link AccessPolicy.check}. */
export type AccessDecision = 'allowed' | 'no-allowlist' | 'denied';

/** Builds a user key from a platform and the platform's user id. */
export function userKey(platform: string, userId: string): string {
  return `${platform}:${userId}`;
}

/**
 * @example
 * const access = new AccessPolicy({ allowedUsers: ['telegram:1'], linkedUsers: { alice: ['telegram:1', 'slack:U1'] } });
 * access.check('slack:U1'); // 'allowed': a linked id of an allowed person
 * access.ownerKey('slack:U1'); // 'alice'
 */
export class AccessPolicy {
  readonly #allowed: Set<string>;
  readonly #admins: Set<string>;
  readonly #approvers: Set<string>;
  readonly #selfApproval: boolean;
  readonly #personOf = new Map<string, string>();
  readonly #idsOf = new Map<string, string[]>();
  readonly #trusted: Set<string>;
  readonly #privateChat: (chat: string) => boolean;

  /**
   * @param privateChat whether only the bot and one person see a chat (its
   *   adapter's capabilities say, `privateChat`); the bot core passes it.
   */
  constructor(options: AccessOptions = {}, privateChat: (chat: string) => boolean = () => false) {
    for (const [person, ids] of Object.entries(options.linkedUsers ?? {})) {
      const clean = ids.map((id) => id.trim()).filter(Boolean);
      this.#idsOf.set(person, clean);
      for (const id of clean) this.#personOf.set(id, person);
    }
    this.#allowed = new Set(this.#expand(options.allowedUsers ?? []));
    this.#admins = new Set(this.#expand(options.admins ?? []));
    this.#approvers = new Set(this.#expand(options.approvers ?? []));
    this.#selfApproval = options.selfApproval ?? true;
    this.#trusted = new Set(options.trustedPlatforms ?? []);
    this.#privateChat = privateChat;
  }

  /** True when an allowlist (or an admin) is configured. */
  get configured(): boolean {
    return this.#allowed.size > 0 || this.#admins.size > 0;
  }

  /** Whether `user` (`platform:id`) may use the bot. */
  check(user: string): AccessDecision {
    if (this.#trusted.has(platformOf(user))) return 'allowed';
    if (!this.configured) return 'no-allowlist';
    // An approver who could not use the bot could not press its buttons either.
    return this.#allowed.has(user) || this.#admins.has(user) || this.#approvers.has(user)
      ? 'allowed'
      : 'denied';
  }

  /** Whether `user` (`platform:id`) is an admin. */
  isAdmin(user: string): boolean {
    return this.#admins.has(user);
  }

  /**
   * Whether `user` may read operator details (setting names, why the
   * sandbox or a tool server is down): admins, and the terminal's operator,
   * who runs the bot on their own machine.
   */
  isOperator(user: string): boolean {
    return this.isAdmin(user) || this.#trusted.has(platformOf(user));
  }

  /** Whether everyone in `chat` (a chat key, `platform:...`) is an operator: the terminal chat. */
  isOperatorChat(chat: string): boolean {
    return this.#trusted.has(platformOf(chat));
  }

  /**
   * Whether only the bot and one person see `chat` (a direct message, the
   * terminal), so that a sign-in link may be shown there. A chat whose
   * adapter cannot say counts as shared.
   */
  isPrivateChat(chat: string): boolean {
    if (this.isOperatorChat(chat)) return true;
    try {
      return this.#privateChat(chat);
    } catch {
      return false;
    }
  }

  /**
   * Whether `user` may answer an approval prompt of `requester`'s turn for a
   * tool of `toolClass`: an admin or a named approver always, the requester
   * (or a linked id) unless self-approval is off and the call executes.
   */
  mayApprove(user: string, requester: string, toolClass: string): boolean {
    if (this.isAdmin(user) || this.#approvers.has(user)) return true;
    if (!this.owns(user, this.ownerKey(requester))) return false;
    return this.#selfApproval || toolClass !== 'execute';
  }

  /** True when `requester` may not answer their own prompt for a call of `toolClass`. */
  needsSecondPerson(toolClass: string): boolean {
    return !this.#selfApproval && toolClass === 'execute';
  }

  /** The owner key sessions are recorded under: the linked person's name, or the user key. */
  ownerKey(user: string): string {
    return this.#personOf.get(user) ?? user;
  }

  /** True when `user` is the owner recorded as `owner` (directly or through a linked identity). */
  owns(user: string, owner: string | undefined): boolean {
    if (owner === undefined) return false;
    return owner === user || owner === this.ownerKey(user) || this.ownerKey(owner) === this.ownerKey(user);
  }

  /** An entry plus every id linked to it: allowing `alice` or one of her ids allows all of them. */
  #expand(entries: readonly string[]): string[] {
    const out: string[] = [];
    for (const raw of entries) {
      const entry = raw.trim();
      if (!entry) continue;
      const person = this.#idsOf.has(entry) ? entry : this.#personOf.get(entry);
      out.push(entry, ...(person ? (this.#idsOf.get(person) ?? []) : []));
    }
    return out;
  }
}

function platformOf(user: string): string {
  const i = user.indexOf(':');
  return i < 0 ? user : user.slice(0, i);
}
