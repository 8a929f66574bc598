/**
 * What a chat's queue holds and runs: a message waiting for its turn (who
 * asked, their files, how its approvals are answered), the turn running
 * now, and how a turn ended. Plain shapes that the chat's runtime, its
 * turns, approvals, voice notes and background runs all speak of.
 */
import type { InteractiveSession, PausedAnswer } from '../session/index.js';
import type { Attachment } from './adapter-contract.js';

/** The person a request belongs to: whoever sent the message that started the turn. */
export interface Requester {
  /** `platform:userId`. */
  key: string;
  name: string;
}

/** How a turn ended, for a `BotObserver`: a reply, a stopped reply, or a failure. */
export type TurnOutcome = 'complete' | 'interrupted' | 'error';

/** A message waiting for its turn. */
export interface QueuedMessage {
  kind: 'message';
  messageId: string;
  /** False when `messageId` is no platform message to reply to (a prompt run by a slash command). */
  replyable?: false;
  text: string;
  /** Images and documents sent with it: the session saves them and shows the model what it can read. */
  files: Attachment[];
  /** Recordings to transcribe when the turn comes (see voice.ts); their transcripts join `text`. */
  audio?: Attachment[];
  requester: Requester;
  /** Owner key for a session this message creates. */
  owner: string;
  /**
   * Set for a run nobody asked for just now (a schedule): `deny` answers its
   * approval prompts with no at once, `ask` posts them like any other.
   */
  unattended?: UnattendedApprovals;
  /** Set for the answer to a stored approval: the chat's waiting turn goes on with it instead of a new prompt. */
  resume?: PausedAnswer;
  /** Told when the message's turn has ended (or could not run), with the reply's text. */
  onDone?: (ended: { outcome: TurnOutcome; response?: string }) => void;
}

/** How approvals are answered in a run nobody started by writing (`SWITCHBOARD_UNATTENDED_APPROVALS`). */
export type UnattendedApprovals = 'ask' | 'deny';

/** The turn a chat is running. */
export interface RunningTurn {
  turnId: string;
  messageId: string;
  requester: Requester;
  session?: InteractiveSession;
  /** Set by stop/edit/shutdown: the note the reply ends with. */
  stopNote?: string;
  /** Aborted with the turn: stops the work before the reply (fetching and transcribing voice notes). */
  cancel?: AbortController;
}
