/**
 * Approval prompts that outlived the process that posted them. A turn that
 * waits for an approval is stored in its session before the prompt shows
 * (with the prompt's button id and who asked); a press that no open prompt
 * of this process knows is looked up there, and answered as any press is:
 * the same people may answer, the prompt is edited to say who chose what,
 * and the turn goes on as a queued reply of its chat. Past the stored
 * deadline the wait ends as a timeout (a denial), as it would have in the
 * first process.
 */
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InteractiveSession, PausedAnswer, PausedTurn } from '../session/index.js';
import { readPausedTurn } from '../session/paused-turn.js';
import type { SessionStore } from '../store/types.js';
import type { AccessPolicy } from './access.js';
import type { ButtonEvent } from './adapter-contract.js';
import { approvalView } from './approval-prompt.js';
import type { ButtonPayload } from './buttons.js';
import type { QueuedMessage, Requester } from './queued-message.js';
import type { Outbox } from './stream/types.js';
import { say } from './text.js';

/** What {@link answerStoredApproval} works with. */
export interface StoredApprovalDeps {
  access: AccessPolicy;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}

/** The bot's notes on a stored wait (see chat-turn.ts `ask`). */
interface HostNotes {
  approval: string;
  /** Set by the first press taken, so a second one finds nothing to answer. */
  answered?: string;
  requester: Requester;
  messageIds?: string[];
  /**
   * When the prompt's wait ended, in records written before the session's
   * own deadline was the only one; newer records go by the paused turn's.
   */
  deadline?: number;
}

function notes(paused: PausedTurn): HostNotes | undefined {
  const host = paused.host as Partial<HostNotes> | undefined;
  const requester = host?.requester;
  if (typeof host?.approval !== 'string' || typeof requester?.key !== 'string') return undefined;
  return host as HostNotes;
}

/** Whether the stored session has a turn waiting on an approval prompt (false when it cannot be read). */
export async function waitsForApproval(store: SessionStore, sessionId: string): Promise<boolean> {
  const loaded = await store.load(sessionId).catch(() => undefined);
  if (loaded?.status !== 'valid') return false;
  const paused = readPausedTurn(loaded.record.pausedTurn);
  return paused !== undefined && notes(paused) !== undefined;
}

/**
 * Answers a press on a prompt stored in `session`'s waiting turn. Returns the
 * message that resumes the turn (for the chat's queue) once the press is
 * taken; undefined when no stored wait has this id (the caller says it
 * expired). A refused press is answered here and returns `'answered'`.
 */
export async function answerStoredApproval(
  deps: StoredApprovalDeps,
  session: InteractiveSession | undefined,
  event: ButtonEvent,
  payload: ButtonPayload,
  presser: string,
): Promise<QueuedMessage | 'answered' | undefined> {
  const paused = session?.pausedTurn();
  const host = paused && notes(paused);
  if (!session || !paused || !host || host.approval !== payload.id || host.answered) return undefined;
  const { access, outbox, clock, logger } = deps;
  const action = payload.action;
  if (action !== 'allow' && action !== 'allow-session' && action !== 'deny') return undefined;
  const timedOut = clock.now() >= (typeof host.deadline === 'number' ? host.deadline : paused.deadline);
  const { toolClass } = paused.request;
  if (!timedOut && !access.mayApprove(presser, host.requester.key, toolClass)) {
    const refusal = access.needsSecondPerson(toolClass)
      ? say.approvalNotSelf
      : say.approvalOnlyFor(host.requester.name);
    await event.respond({ text: refusal, ephemeral: true });
    return 'answered';
  }
  // A timeout is a denial, as the registry settles one in the running process.
  const answer: Extract<PausedAnswer, 'allow' | 'allow-session' | 'deny'> = timedOut ? 'deny' : action;
  const outcome = timedOut
    ? say.deniedTimeout
    : answer === 'allow'
      ? say.allowed(event.user.name)
      : answer === 'allow-session'
        ? say.allowedSession(event.user.name)
        : say.denied(event.user.name);
  void session.notePausedTurn({ answered: answer });
  const promptId = host.messageIds?.at(-1) ?? event.messageId;
  if (promptId !== undefined) {
    const view = approvalView(paused.request, outbox.capabilities(event.chat).maxMessageLength);
    await outbox
      .edit(event.chat, promptId, `${view.prompt}\n\n${outcome}`, { buttons: [] })
      .catch((err: unknown) => {
        logger.warn({ chat: event.chat, err: describeError(err) }, 'approval outcome edit failed');
      });
  }
  await event.respond({ text: timedOut ? say.expired : say.answered[answer], ephemeral: true });
  logger.info({ chat: event.chat, approval: payload.id, answer }, 'stored approval answered');
  return {
    kind: 'message',
    messageId: promptId ?? '',
    ...(promptId === undefined ? { replyable: false as const } : {}),
    text: '',
    files: [],
    requester: host.requester,
    owner: session.getOwner() ?? host.requester.key,
    resume: answer,
  };
}
