/**
 * Who a session is: its id, name, owner, creation date and the session it
 * was forked from, as a new session starts them and as a saved record gives
 * them back. Resumed, it is the same session (its id, date and name go on);
 * forked, it is a new one that notes where its conversation came from and
 * keeps the record's owner unless it was given its own.
 */
import { newSessionId, validateSessionName } from '../store/index.js';
import type { SessionMeta, SessionRecord } from '../store/types.js';
import type { InteractiveSessionOptions } from './session-options.js';

/** The options that say who a session is. */
type IdentityOptions = Pick<
  InteractiveSessionOptions,
  'resumeSessionId' | 'forkSession' | 'sessionName' | 'owner'
>;

/** A session's identity, as its record keeps it. */
export class SessionIdentity {
  readonly #options: IdentityOptions;
  /** True when the session goes on as the saved one (not a fork, not new). */
  readonly resuming: boolean;
  id: string;
  name: string | undefined;
  owner: string | undefined;
  createdAt: string;
  forkedFrom: string | undefined;

  /** `now` is the session clock's time, in ms since the epoch. */
  constructor(options: IdentityOptions, now: number) {
    this.#options = options;
    this.resuming = options.resumeSessionId !== undefined && !options.forkSession;
    this.id = this.resuming ? (options.resumeSessionId as string) : newSessionId(now);
    this.createdAt = new Date(now).toISOString();
    if (options.sessionName !== undefined) this.name = validateSessionName(options.sessionName);
    this.owner = options.owner;
  }

  /**
   * Takes what the saved record says about who the session is. True when a
   * name given on resume differs from the record's, so it must be saved.
   */
  adopt(record: SessionRecord): boolean {
    this.owner = record.owner ?? this.#options.owner;
    if (!this.resuming) {
      // A fork is a new session: its own owner when one is given.
      this.forkedFrom = record.id;
      if (this.#options.owner !== undefined) this.owner = this.#options.owner;
      return false;
    }
    this.createdAt = record.createdAt;
    this.name = this.name ?? record.name;
    this.forkedFrom = record.forkedFrom;
    return this.#options.sessionName !== undefined && this.name !== record.name;
  }

  /** The record's fields that say who the session is. */
  recordFields(): Pick<SessionMeta, 'id' | 'name' | 'owner' | 'createdAt' | 'forkedFrom'> {
    return {
      id: this.id,
      ...(this.name === undefined ? {} : { name: this.name }),
      ...(this.owner === undefined ? {} : { owner: this.owner }),
      createdAt: this.createdAt,
      ...(this.forkedFrom === undefined ? {} : { forkedFrom: this.forkedFrom }),
    };
  }
}
