/**
 * Background work (`/bg <prompt>`): a new session of its own runs the
 * prompt without blocking the chat. Where the platform has threads or forum
 * topics, it runs in a new one like any conversation (streamed, approvals
 * asked there) and one line with a link comes back to the chat when it
 * ends. Elsewhere it runs unseen and its result comes back as one marked
 * reply under the line that started it, naming the session so `/resume`
 * can continue it; nobody watches that run, so a tool that would ask for
 * approval is denied, and the result says so.
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InteractiveSession } from '../session/index.js';
import type { PendingPermission } from '../session/types.js';
import type { OpenedThread } from './adapter-contract.js';
import type { Background } from './background.js';
import type { QueuedMessage } from './queued-message.js';
import type { SessionRegistry } from './sessions-registry.js';
import type { Outbox } from './stream/types.js';
import { withoutOperatorDetail } from './text.js';

/** Who starts a background run, and where. */
export interface BackgroundRequest {
  chat: string;
  /** `platform:userId`: the run is theirs (approvals in its thread). */
  user: string;
  userName: string;
  owner: string;
  prompt: string;
}

/** What background runs use. */
export interface BackgroundRunsDeps {
  registry: SessionRegistry;
  outbox: Outbox;
  background: Background;
  logger: Logger;
  /** True for a chat whose people are all operators (the terminal): its failures keep setting names. */
  isOperatorChat: (chat: string) => boolean;
  /** Opens a thread beside a chat, where its platform has them. */
  openThread?: (chat: string, text: string) => Promise<OpenedThread | undefined>;
  /** Queues a turn in a chat (the thread's). */
  enqueue: (chat: string, item: QueuedMessage) => boolean;
}

/** Longest result posted back; the rest stays in the session for /resume. */
const RESULT_MAX_CHARS = 3_500;

/** The background runs of this process. */
export class BackgroundRuns {
  readonly #d: BackgroundRunsDeps;
  readonly #running = new Set<InteractiveSession>();

  constructor(deps: BackgroundRunsDeps) {
    this.#d = deps;
  }

  /** Runs in progress. */
  get size(): number {
    return this.#running.size;
  }

  /** Starts `request`; resolves once it runs (not when it ends) with the session's id. */
  async start(request: BackgroundRequest): Promise<string> {
    const { registry, outbox, background, logger } = this.#d;
    const line = `🧵 Background: ${request.prompt}`;
    const thread = await this.#d.openThread?.(request.chat, line).catch((err: unknown) => {
      logger.warn({ chat: request.chat, err: describeError(err) }, 'could not open a thread; running unseen');
      return undefined;
    });
    if (thread) return this.#inThread(request, thread);
    const [markerId] = await outbox.send(request.chat, line, { plain: true });
    const session = await registry.detached(request.chat, request.owner);
    const id = session.getSession().getSessionId();
    this.#running.add(session);
    background.track(
      this.#run(session, request).then((text) =>
        outbox.send(request.chat, text, { ...(markerId ? { replyTo: markerId } : {}) }),
      ),
      'background run',
    );
    return id;
  }

  /** Runs the prompt as the first turn of a new session bound to the thread; one line with the link when it ends. */
  async #inThread(request: BackgroundRequest, thread: OpenedThread): Promise<string> {
    const { registry, outbox, background } = this.#d;
    const session = await registry.create(thread.chat, request.owner);
    const id = session.getSession().getSessionId();
    this.#d.enqueue(thread.chat, {
      kind: 'message',
      messageId: thread.messageId ?? '',
      text: request.prompt,
      files: [],
      requester: { key: request.user, name: request.userName },
      owner: request.owner,
      onDone: ({ outcome, response }) => {
        const first = (response ?? '').trim().split('\n')[0] ?? '';
        const gist = first.length > 120 ? `${first.slice(0, 119)}…` : first;
        const how = outcome === 'complete' ? 'done' : outcome === 'interrupted' ? 'stopped' : 'failed';
        const where = thread.url ? ` ([thread](${thread.url}))` : '';
        background.track(
          outbox.send(request.chat, `🧵 Background ${how}: ${gist || request.prompt.slice(0, 80)}${where}`),
          'background line',
        );
      },
    });
    return id;
  }

  /** Stops every background run (shutdown); each still reports how far it got. */
  stopAll(): void {
    for (const session of this.#running) session.abort();
  }

  async #run(session: InteractiveSession, request: BackgroundRequest): Promise<string> {
    const id = session.getSession().getSessionId();
    const denied: string[] = [];
    const deny = (r: PendingPermission) => {
      denied.push(r.toolName);
      r.answer('deny');
    };
    session.on('permission_request', deny);
    const head = `🧵 Background result (session ${id}; /resume ${id} continues it)`;
    try {
      const { completed } = await session.submit({ text: request.prompt, author: request.userName });
      const result = await completed;
      const cut =
        result.response.length > RESULT_MAX_CHARS
          ? `${result.response.slice(0, RESULT_MAX_CHARS)}…`
          : result.response;
      const refusals = denied.length
        ? `\n\n(Denied without asking, as nobody watches a background run: ${[...new Set(denied)].join(', ')}.)`
        : '';
      const state = result.state === 'interrupted' ? ' - stopped before the end' : '';
      return `${head}${state}:\n\n${cut || '(no text)'}${refusals}`;
    } catch (err) {
      this.#d.logger.warn(
        { chat: request.chat, sessionId: id, err: describeError(err) },
        'background run failed',
      );
      // The result is posted for everyone in the chat: a fix only the operator can apply is left out.
      const why = describeError(err);
      return `${head} failed: ${this.#d.isOperatorChat(request.chat) ? why : withoutOperatorDetail(why)}`;
    } finally {
      session.off('permission_request', deny);
      this.#running.delete(session);
    }
  }
}
