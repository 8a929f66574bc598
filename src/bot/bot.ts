/**
 * The bot core's wiring: adapters in, outbox out. `dispatch` checks the
 * delivery id and the allowlist, then hands each event to the chat's runtime,
 * the command table or the approval registry, answering button presses and
 * /stop at once and never waiting for a whole turn.
 */
import { systemClock } from '../clock.js';
import type { ControlEnvelope } from '../cluster/types.js';
import { describeError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { Sandbox } from '../sandbox/sandbox.js';
import type { ActiveTurn } from '../store/types.js';
import { createBuiltinTools } from '../tools/index.js';
import { AccessPolicy, userKey } from './access.js';
import { type ChatEvent, chatPlatform } from './adapter-contract.js';
import { ApprovalRegistry } from './approvals.js';
import { decodeButton } from './buttons.js';
import { ChatRuntime } from './chat-runtime.js';
import { runCommand } from './commands.js';
import { intake } from './intake.js';
import type { Bot, BotOptions } from './options.js';
import { applyRemoteControl } from './remote-control.js';
import { ReplicaLink } from './replicas.js';
import { SessionRegistry } from './sessions-registry.js';
import { createOutbox } from './stream/index.js';
import { MAX_INPUT_CHARS, say } from './text.js';

const DEFAULTS = {
  approvalTimeoutMs: 600_000,
  idleReleaseMs: 600_000,
  queueLimit: 20,
  leaseTtlMs: 30_000,
  leaseWaitMs: 900_000,
};

/**
 * Creates the bot core over a set of adapters: each chat key gets a persisted
 * session, replies stream back through one paced outbox, tool calls wait for
 * approval buttons, and the chat commands work the same on every platform.
 *
 * @example
 * const bot = createBot({ adapters: [telegram], provider, sessionStore, stateStore, workspace: './workspace',
 *   allowedUsers: ['telegram:42'] });
 * await bot.start();
 * process.on('SIGTERM', () => void bot.stop());
 */
export function createBot(options: BotOptions): Bot {
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? silentLogger).child({ component: 'bot' });
  const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULTS.approvalTimeoutMs;
  const outbox = options.outbox ?? createOutbox({ adapters: options.adapters, clock, logger });
  const access = new AccessPolicy({
    allowedUsers: options.allowedUsers,
    admins: options.admins,
    linkedUsers: options.linkedUsers,
    trustedPlatforms: options.trustedPlatforms,
  });
  const approvals = new ApprovalRegistry({ outbox, access, clock, timeoutMs: approvalTimeoutMs, logger });
  const background = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>, what: string) => {
    const tracked = p.catch((err: unknown) => logger.error({ err: describeError(err) }, `${what} failed`));
    background.add(tracked);
    void tracked.finally(() => background.delete(tracked));
  };
  const notify = (chat: string, text: string) => track(outbox.send(chat, text), 'notice');
  const registry = new SessionRegistry({
    provider: options.provider,
    sessionStore: options.sessionStore,
    stateStore: options.stateStore,
    workspace: options.workspace,
    workspacePerChat: options.workspacePerChat ?? false,
    tools: options.tools ?? createBuiltinTools(),
    permissionMode: options.permissionMode ?? 'default',
    model: options.model,
    projectAccess: options.projectAccess,
    toolEnv: options.toolEnv,
    sandbox: options.sandbox ?? new Sandbox(),
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    // The bot's own timer answers first and edits the prompt; the session's is a backstop.
    permissionTimeoutMs: approvalTimeoutMs * 2,
    idleReleaseMs: options.idleReleaseMs ?? DEFAULTS.idleReleaseMs,
    clock,
    logger,
    notify,
    corruptNotice: say.corruptSession,
  });
  const announce = (turn: ActiveTurn) => {
    logger.warn({ chat: turn.chat, sessionId: turn.sessionId }, 'reply was cut off by a restart');
    notify(turn.chat, say.crashNotice);
  };
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULTS.leaseTtlMs;
  const link = new ReplicaLink({
    lease: options.lease,
    bus: options.bus,
    ttlMs: leaseTtlMs,
    stateStore: options.stateStore,
    clock,
    logger,
  });
  const lease = link.runtimeLease({
    waitMs: options.leaseWaitMs ?? DEFAULTS.leaseWaitMs,
    forget: (chat) => registry.forget(chat),
    announce,
  });
  const runtimes = new Map<string, ChatRuntime>();
  const runtime = (chat: string) => {
    let r = runtimes.get(chat);
    if (!r) {
      r = new ChatRuntime(chat, {
        registry,
        outbox,
        approvals,
        stateStore: options.stateStore,
        clock,
        logger,
        queueLimit: options.queueLimit ?? DEFAULTS.queueLimit,
        onIdle: prune,
        ...(lease ? { lease } : {}),
      });
      runtimes.set(chat, r);
    }
    return r;
  };
  // Commands still working with a chat's runtime; it is kept until they are done.
  const commandsRunning = new Map<string, number>();
  /** Forgets an idle chat so a long-lived bot does not keep one object per chat it ever saw. */
  function prune(r: ChatRuntime): void {
    if (r.busy || commandsRunning.has(r.chat) || runtimes.get(r.chat) !== r) return;
    runtimes.delete(r.chat);
    logger.debug({ chat: r.chat }, 'idle chat forgotten');
  }
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  const ordered = intake();

  /** False for a redelivery. A state store that cannot record it must not cost the user their message. */
  async function firstDelivery(id: string): Promise<boolean> {
    try {
      return await options.stateStore.markDelivered(id);
    } catch (err) {
      logger.error({ err: describeError(err) }, 'could not record a delivery id; handling the event anyway');
      return true;
    }
  }

  async function handle(event: ChatEvent): Promise<void> {
    const platform = chatPlatform(event.chat);
    const deliveryId = event.deliveryId;
    if (deliveryId !== undefined && !(await firstDelivery(`${platform}:${deliveryId}`))) {
      logger.debug({ chat: event.chat, type: event.type }, 'duplicate delivery ignored');
      // A redelivered press or slash command still holds a responder waiting for its one answer.
      const respond = event.type === 'button' || event.type === 'command' ? event.respond : undefined;
      await respond?.({ text: say.alreadyHandled, ephemeral: true });
      return;
    }
    const user = userKey(platform, event.user.id);
    const decision = access.check(user);
    if (decision !== 'allowed') {
      logger.warn({ chat: event.chat, user, decision, type: event.type }, 'event from a user not allowed');
      if (event.type === 'edit') return;
      await answer(event, decision === 'no-allowlist' ? say.noAllowlist(user) : say.notAllowed(user));
      return;
    }
    const owner = access.ownerKey(user);
    const chat = runtime(event.chat);
    try {
      await route(event, chat, user, owner);
    } finally {
      prune(chat);
    }
  }

  async function route(event: ChatEvent, chat: ChatRuntime, user: string, owner: string): Promise<void> {
    switch (event.type) {
      case 'message':
        return acceptMessage(event, chat, { key: user, name: event.user.name }, owner);
      case 'edit':
        if (event.text.length > MAX_INPUT_CHARS) {
          track(
            outbox.send(event.chat, say.tooLong(event.text.length), { replyTo: event.messageId }),
            'answer',
          );
        } else if (!chat.edit(event.messageId, event.text)) {
          // It may be the message whose turn another replica is running.
          const { messageId, text } = event;
          if (link.shared)
            track(link.forward(event.chat, { type: 'edit', messageId, text, user: event.user }), 'edit');
          else logger.debug({ chat: event.chat }, 'edit of an old message ignored');
        }
        return;
      case 'stop': {
        const text = await link.stop(chat, event.user);
        if (text !== undefined) notify(event.chat, text);
        return;
      }
      case 'button': {
        const payload = decodeButton(event.payload);
        if (!payload) return event.respond({ text: say.expired, ephemeral: true });
        const here =
          payload.action === 'stop' ? chat.runningTurnId === payload.id : approvals.has(payload.id);
        if (!here && !chat.busy && (await link.heldElsewhere(event.chat))) {
          const { payload: raw, messageId } = event;
          const sent = await link.forward(event.chat, {
            type: 'button',
            payload: raw,
            user: event.user,
            ...(messageId === undefined ? {} : { messageId }),
          });
          return event.respond({ text: sent ? say.sentToReplica : say.expired, ephemeral: true });
        }
        if (payload.action !== 'stop') return approvals.press(event, payload, user);
        if (!here) return event.respond({ text: say.alreadyFinished, ephemeral: true });
        chat.stop();
        return event.respond({ text: say.stopping, ephemeral: true });
      }
      case 'command': {
        const ctx = {
          chat: event.chat,
          user,
          userName: event.user.name,
          owner,
          runtime: chat,
          registry,
          sessionStore: options.sessionStore,
          access,
          logger,
          answer: (text: string) => answer(event, text),
          stop: () => link.stop(chat, event.user),
        };
        // Commands may wait on a compaction or a store; the sink must not.
        commandsRunning.set(event.chat, (commandsRunning.get(event.chat) ?? 0) + 1);
        const done = runCommand(ctx, event.name, event.args).finally(() => {
          const left = (commandsRunning.get(event.chat) ?? 1) - 1;
          if (left > 0) commandsRunning.set(event.chat, left);
          else commandsRunning.delete(event.chat);
          prune(chat);
        });
        track(done, 'command');
        return;
      }
    }
  }

  function acceptMessage(
    event: Extract<ChatEvent, { type: 'message' }>,
    chat: ChatRuntime,
    requester: { key: string; name: string },
    owner: string,
  ): void {
    const reply = (text: string) =>
      track(outbox.send(event.chat, text, { replyTo: event.messageId }), 'answer');
    const attachments = event.attachments ?? [];
    const images = attachments.filter((a) => a.kind === 'image' && a.data && a.mediaType);
    const unreadable = attachments.filter((a) => a.kind !== 'image');
    if (attachments.some((a) => a.kind === 'image' && !(a.data && a.mediaType))) reply(say.imageMissing);
    if (unreadable.length) reply(say.unreadable(unreadable));
    const text = event.text.trim();
    if (!text && !images.length) return;
    if (event.text.length > MAX_INPUT_CHARS) {
      reply(say.tooLong(event.text.length));
      return;
    }
    const queued = chat.enqueue({
      kind: 'message',
      messageId: event.messageId,
      text: withReplyContext(event),
      images: images.map((a) => ({ mediaType: a.mediaType ?? '', data: a.data ?? '' })),
      requester,
      owner,
    });
    if (!queued) reply(say.queueFull(options.queueLimit ?? DEFAULTS.queueLimit));
  }

  /** Control messages from the other replicas, for turns that may run here. */
  const fromReplica = (envelope: ControlEnvelope) =>
    state === 'running'
      ? applyRemoteControl({ runtime: (key) => runtimes.get(key), approvals, notify, logger }, envelope)
      : undefined;

  /** Answers through the event's responder when it has one, else in the chat (without waiting for pacing). */
  async function answer(event: ChatEvent, text: string): Promise<void> {
    if (event.type === 'button' || (event.type === 'command' && event.respond)) {
      await event.respond?.({ text, ephemeral: true });
      return;
    }
    const replyTo = 'messageId' in event ? event.messageId : undefined;
    track(outbox.send(event.chat, text, { plain: true, ...(replyTo ? { replyTo } : {}) }), 'answer');
  }

  async function idle(): Promise<void> {
    for (;;) {
      await Promise.all([...runtimes.values()].map((r) => r.idle()));
      if (!background.size && ![...runtimes.values()].some((r) => r.busy)) break;
      await Promise.allSettled([...background]);
    }
  }

  const bot: Bot = {
    outbox,
    idle,
    dispatch: async (event) => {
      if (state === 'stopping' || state === 'stopped') {
        const respond = event.type === 'button' || event.type === 'command' ? event.respond : undefined;
        await respond?.({ text: say.shuttingDown, ephemeral: true });
        return;
      }
      try {
        // Button presses and the platform's stop control skip the line: they must act at once.
        if (event.type === 'button' || event.type === 'stop') await handle(event);
        else await ordered(event.chat, () => handle(event));
      } catch (err) {
        logger.error(
          { chat: event.chat, type: event.type, err: describeError(err) },
          'event could not be handled',
        );
      }
    },
    async start() {
      if (state !== 'new') throw new Error('createBot(): start() may be called once.');
      state = 'running';
      // Read and clear the cut-off turns first, so a new turn's record is never cleared by mistake.
      // With several replicas only turns whose chat no live replica holds are cut off.
      const leftover = await link.claimOrphans();
      await link.listen(fromReplica);
      await Promise.all(options.adapters.map((a) => a.start((event) => bot.dispatch(event))));
      leftover.forEach(announce);
      link.sweepEvery(announce);
    },
    async stop() {
      if (state === 'stopping' || state === 'stopped') return;
      state = 'stopping';
      link.close();
      for (const r of runtimes.values()) r.stop(say.shuttingDown);
      await idle();
      approvals.closeAll(say.shuttingDown);
      await approvals.idle();
      await outbox.idle();
      await Promise.allSettled(options.adapters.map((a) => a.stop()));
      await registry.closeAll();
      await options.sessionStore.flush();
      await options.stateStore.flush();
      state = 'stopped';
      logger.info('bot stopped');
    },
  };
  return bot;
}

const QUOTE_LIMIT = 500;

/**
 * A reply to an earlier message carries what it answers, so the model knows
 * which part of a long conversation "this" or "no, the second one" refers to.
 */
function withReplyContext(event: Extract<ChatEvent, { type: 'message' }>): string {
  const quoted = event.replyTo?.text?.trim();
  if (!quoted) return event.text;
  const cut = quoted.length > QUOTE_LIMIT ? `${quoted.slice(0, QUOTE_LIMIT)}…` : quoted;
  const whose = event.replyTo?.fromBot ? 'your earlier message' : 'an earlier message';
  return `(In reply to ${whose}: "${cut}")\n${event.text}`;
}
