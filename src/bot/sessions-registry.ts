/**
 * Which session a chat talks to, and the sessions held in memory. A chat key
 * points at a session id through the state store; sessions are opened on
 * demand, shared when two chats point at the same id, turned one at a time
 * (a per-session lock), and closed after sitting idle for a while.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { describeError, SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ToolsReport } from '../session/factory.js';
import type { InteractiveSession, SessionFactory, SessionRequest } from '../session/index.js';
import { sandboxWarning } from '../session/index.js';
import type { BotStateStore } from '../store/types.js';
import type { ToolPrompt } from '../vocabulary.js';

/** What the registry needs to open sessions. */
export interface RegistryOptions {
  /** Opens every session: provider, tools and store are its business. */
  sessions: SessionFactory;
  stateStore: BotStateStore;
  /** The session's own permission timeout; the bot's approval timer fires first. */
  permissionTimeoutMs: number;
  idleReleaseMs: number;
  clock: Clock;
  logger: Logger;
  /** Tells a chat something happened to its session (corrupt file moved aside). */
  notify: (chat: string, text: string) => void;
  /** Text of the notice for a session that could not be read. */
  corruptNotice: (id: string, status: string, reason: string) => string;
}

interface Entry {
  id: string;
  session: InteractiveSession;
  /** Turns and commands using the session right now; it is not released while > 0. */
  holds: number;
  /** Resolves when the current lock holder is done. */
  tail: Promise<void>;
  timer?: TimerHandle;
}

/** Chat -> session mapping plus the in-memory cache of open sessions. */
export class SessionRegistry {
  readonly #o: RegistryOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #opening = new Map<string, Promise<Entry>>();
  /** One resolution per chat at a time, so two messages never create two sessions. */
  readonly #resolving = new Map<string, Promise<InteractiveSession>>();
  #closed = false;

  constructor(options: RegistryOptions) {
    this.#o = options;
  }

  /** Sessions currently held in memory. */
  get openCount(): number {
    return this.#entries.size;
  }

  /** The id a chat is bound to, if any. */
  async boundId(chat: string): Promise<string | undefined> {
    return (await this.#o.stateStore.getChat(chat))?.sessionId;
  }

  /**
   * The chat's session: the bound one (reloaded if it left memory), or a new
   * one owned by `owner`. A bound session that cannot be read is reported to
   * the chat, moved aside intact, and replaced by a fresh one.
   */
  forChat(chat: string, owner: string): Promise<InteractiveSession> {
    const inFlight = this.#resolving.get(chat);
    if (inFlight) return inFlight;
    const p = this.#resolve(chat, owner).finally(() => this.#resolving.delete(chat));
    this.#resolving.set(chat, p);
    return p;
  }

  /** The chat's session if it has one, without creating it. */
  async existing(chat: string): Promise<InteractiveSession | undefined> {
    // A session being created for this chat right now counts: its binding is not written yet.
    const inFlight = this.#resolving.get(chat);
    if (inFlight) return inFlight;
    const binding = await this.#o.stateStore.getChat(chat);
    return binding ? this.forChat(chat, binding.owner ?? '') : undefined;
  }

  /**
   * One line for `/status` when the tools' sandbox is not in force, else
   * undefined: for an operator, the sandbox's own words (the cause and the
   * setting that changes it); for anyone else, only what it means for them.
   */
  async sandboxLine(operator: boolean): Promise<string | undefined> {
    const status = await this.#o.sessions.sandbox.check();
    if (operator) return sandboxWarning(status);
    if (status.state === 'unavailable')
      return 'Sandbox: unavailable, so the agent cannot run commands (Bash)';
    if (status.state === 'off') return "Sandbox: off; commands run with the bot's own rights";
    return undefined;
  }

  /** The tools sessions get, by server, for `/tools` and `/status`. */
  toolsReport(): ToolsReport {
    return this.#o.sessions.toolsReport();
  }

  /** The prompts the tool servers offer, for `/mcp prompts`. */
  async prompts(): Promise<ToolPrompt[]> {
    return (await this.#o.sessions.prompts?.()) ?? [];
  }

  /** A tool server's prompt as the text of a message, for `/mcp run`. */
  async promptText(server: string, prompt: string, words: readonly string[]): Promise<string> {
    const { sessions } = this.#o;
    if (!sessions.promptText) throw new SwitchboardError('NOT_FOUND', 'These sessions have no MCP servers.');
    return sessions.promptText(server, prompt, words);
  }

  /** The answer to `/mcp login <server>` run in `chat`. */
  async signIn(server: string, chat: string): Promise<string> {
    return (await this.#o.sessions.signIn?.(server, chat)) ?? 'These sessions have no MCP servers.';
  }

  /** The answer to `/mcp logout <server>`. */
  async signOut(server: string): Promise<string> {
    return (await this.#o.sessions.signOut?.(server)) ?? 'These sessions have no MCP servers.';
  }

  /** A fresh session for the chat (`/new`). */
  async create(chat: string, owner: string): Promise<InteractiveSession> {
    const entry = await this.#adopt(await this.#openSession({ key: chat, owner }));
    await this.#bind(chat, entry.id, owner);
    return entry.session;
  }

  /**
   * A fresh session bound to no chat (`/bg`): kept in memory like the others
   * (closed when idle or at shutdown) and resumable by its id.
   */
  async detached(chat: string, owner: string): Promise<InteractiveSession> {
    return (await this.#adopt(await this.#openSession({ key: chat, owner }))).session;
  }

  /** Opens a stored session (valid outcome checked by the caller) and binds the chat to it (`/resume`). */
  async resume(chat: string, id: string, owner: string | undefined): Promise<InteractiveSession> {
    const entry = await this.#open(chat, id, owner);
    await this.#bind(chat, id, owner);
    return entry.session;
  }

  /**
   * Copies the chat's session under a new id and binds the chat to the copy
   * (`/fork`). The copy keeps `bypassPermissions` only for `mayBypass` (an
   * admin): otherwise a fork of a session an admin switched, resumed in a
   * DM, would hand its mode to someone who may not set it.
   */
  async fork(chat: string, owner: string, mayBypass: boolean): Promise<InteractiveSession> {
    const current = await this.forChat(chat, owner);
    const from = current.getSession().getSessionId();
    const session = await this.#openSession({ key: chat, owner, resumeSessionId: from, forkSession: true });
    const handle = session.getSession();
    if (!mayBypass && handle.getPermissionMode() === 'bypassPermissions') handle.setPermissionMode('default');
    const entry = await this.#adopt(session);
    await this.#bind(chat, entry.id, owner);
    return entry.session;
  }

  /**
   * The chat's session, held in memory and locked for one turn or command:
   * one at a time per session, even when several chats share it. Call
   * `release` when done.
   */
  async acquire(chat: string, owner: string): Promise<{ session: InteractiveSession; release: () => void }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const session = await this.forChat(chat, owner);
      // Taken in the same tick the session was found, so the idle timer cannot close it in between.
      const entry = this.#entries.get(session.getSession().getSessionId());
      if (entry?.session === session) return { session, release: await this.#lock(entry) };
    }
    throw new SwitchboardError(
      'SESSION_BUSY',
      'The session was closed while it was being opened; send the message again.',
    );
  }

  async #lock(entry: Entry): Promise<() => void> {
    entry.holds++;
    this.#disarm(entry);
    const previous = entry.tail;
    let release!: () => void;
    entry.tail = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.holds--;
      release();
      this.#arm(entry);
    };
  }

  /**
   * Drops the chat's session from memory so the next turn reads it from the
   * store: another replica ran turns in this chat meanwhile. A session in use
   * here (shared with a chat running now) is kept.
   */
  async forget(chat: string): Promise<void> {
    const id = await this.boundId(chat);
    const entry = id === undefined ? undefined : this.#entries.get(id);
    if (!entry || entry.holds > 0 || entry.session.isRunning()) return;
    this.#entries.delete(entry.id);
    this.#disarm(entry);
    this.#o.logger.debug({ chat, sessionId: entry.id }, 'cached session dropped');
    await this.#close(entry);
  }

  /** Closes every open session (flushing its saves) and stops the idle timers. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#opening.values()]);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) this.#disarm(entry);
    await Promise.allSettled(entries.map((e) => this.#close(e)));
  }

  async #resolve(chat: string, owner: string): Promise<InteractiveSession> {
    const { stateStore, logger } = this.#o;
    const { sessionStore } = this.#o.sessions;
    const binding = await stateStore.getChat(chat);
    if (!binding) return this.create(chat, owner);
    const id = binding.sessionId;
    const open = this.#entries.get(id);
    if (open) return open.session;
    const outcome = await sessionStore.load(id);
    if (outcome.status === 'valid') return (await this.#open(chat, id, binding.owner ?? owner)).session;
    if (outcome.status === 'missing') {
      // A session that never finished a turn may not be on disk yet.
      logger.warn({ chat, sessionId: id }, 'bound session not found; starting a new one');
      return this.create(chat, binding.owner ?? owner);
    }
    const reason = outcome.status === 'corrupt' ? outcome.reason : `version ${String(outcome.version)}`;
    let moved: string[] = [];
    try {
      moved = await sessionStore.quarantine(id);
    } catch (err) {
      logger.error(
        { chat, sessionId: id, err: describeError(err) },
        'could not move the unreadable session aside',
      );
    }
    logger.error(
      { chat, sessionId: id, status: outcome.status, reason, moved },
      'session unreadable; starting fresh',
    );
    this.#o.notify(chat, this.#o.corruptNotice(id, outcome.status, reason));
    return this.create(chat, binding.owner ?? owner);
  }

  async #open(chat: string, id: string, owner: string | undefined): Promise<Entry> {
    const open = this.#entries.get(id);
    if (open) return open;
    const inFlight = this.#opening.get(id);
    if (inFlight) return inFlight;
    const p = this.#openSession({ key: chat, owner, resumeSessionId: id })
      .then((session) => this.#adopt(session))
      .finally(() => this.#opening.delete(id));
    this.#opening.set(id, p);
    return p;
  }

  async #adopt(session: InteractiveSession): Promise<Entry> {
    const id = session.getSession().getSessionId();
    const entry: Entry = { id, session, holds: 0, tail: Promise.resolve() };
    if (this.#closed) {
      await session.close();
      throw new Error('The bot is shutting down.');
    }
    this.#entries.set(id, entry);
    this.#arm(entry);
    this.#o.logger.debug({ sessionId: id }, 'session opened');
    return entry;
  }

  async #bind(chat: string, sessionId: string, owner: string | undefined): Promise<void> {
    const updatedAt = new Date(this.#o.clock.now()).toISOString();
    await this.#o.stateStore.setChat(chat, { sessionId, updatedAt, ...(owner ? { owner } : {}) });
    this.#o.logger.info({ chat, sessionId }, 'chat bound to session');
  }

  #openSession(request: SessionRequest): Promise<InteractiveSession> {
    return this.#o.sessions.open({ ...request, permissionTimeoutMs: this.#o.permissionTimeoutMs });
  }

  #arm(entry: Entry): void {
    this.#disarm(entry);
    if (this.#closed || entry.holds > 0) return;
    entry.timer = this.#o.clock.setTimeout(() => void this.#release(entry), this.#o.idleReleaseMs);
  }

  #disarm(entry: Entry): void {
    if (entry.timer !== undefined) this.#o.clock.clearTimeout(entry.timer);
    delete entry.timer;
  }

  async #release(entry: Entry): Promise<void> {
    delete entry.timer;
    if (entry.holds > 0 || entry.session.isRunning() || this.#entries.get(entry.id) !== entry) return;
    this.#entries.delete(entry.id);
    this.#o.logger.info({ sessionId: entry.id }, 'idle session released from memory');
    await this.#close(entry);
  }

  async #close(entry: Entry): Promise<void> {
    try {
      await entry.session.close();
    } catch (err) {
      this.#o.logger.error({ sessionId: entry.id, err: describeError(err) }, 'closing a session failed');
    }
  }
}
