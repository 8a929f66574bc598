/**
 * The bot core's lifecycle: it builds the router (and, for one replica among
 * several, the replica router around it), starts the adapters with a sink
 * that keeps each chat's events in order and admits them, tells chats whose
 * reply a crash cut off, and stops everything in order.
 */
import { systemClock } from '../clock.js';
import { describeError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { LocalTrigger } from '../schedule/local-trigger.js';
import { Scheduler } from '../schedule/scheduler.js';
import { createMemoryControlsStore } from '../store/controls.js';
import type { ActiveTurn, BotStateStore } from '../store/types.js';
import { AccessPolicy } from './access.js';
import { type ChatEvent, chatPlatform } from './adapter-contract.js';
import { accessGate, admit, type Sender } from './admission.js';
import { ApprovalRegistry } from './approvals.js';
import { Background } from './background.js';
import { BackgroundRuns } from './bg-runs.js';
import type { BotContext } from './bot-context.js';
import { Budgets } from './budgets.js';
import { intake } from './intake.js';
import type { Bot, BotOptions } from './options.js';
import { ReplicaRouter, replicaGates } from './replicas.js';
import { ChatRouter } from './router.js';
import { RulePrompts } from './rule-prompts.js';
import { Rules } from './rules.js';
import { SaveHealth } from './save-health.js';
import { SessionRegistry } from './sessions-registry.js';
import { waitsForApproval } from './stored-approvals.js';
import { createOutbox } from './stream/index.js';
import { say } from './text.js';

const DEFAULTS = {
  approvalTimeoutMs: 600_000,
  idleReleaseMs: 600_000,
  queueLimit: 20,
  leaseTtlMs: 30_000,
  leaseWaitMs: 900_000,
  answerTimeoutMs: 5_000,
};

/**
 * Creates the bot core over a set of adapters: each chat key gets a persisted
 * session, replies stream back through one paced outbox, tool calls wait for
 * approval buttons, and the chat commands work the same on every platform.
 *
 * @example
 * const bot = createBot({
 *   adapters: [telegram],
 *   sessions: createSessionFactory({ provider, sessionStore, workspace: './workspace' }),
 *   stores: { state: stateStore },
 *   access: { allowedUsers: ['telegram:42'] },
 * });
 * await bot.start();
 * process.on('SIGTERM', () => void bot.stop());
 */
export function createBot(options: BotOptions): Bot {
  const { adapters, sessions, cluster, limits = {} } = options;
  const stateStore = options.stores.state;
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? silentLogger).child({ component: 'bot' });
  const approvalTimeoutMs = limits.approvalTimeoutMs ?? DEFAULTS.approvalTimeoutMs;
  const queueLimit = limits.queueLimit ?? DEFAULTS.queueLimit;
  const outbox = options.outbox ?? createOutbox({ adapters, clock, logger });
  const access = new AccessPolicy(
    options.access ?? {},
    (chat) => outbox.capabilities(chat).privateChat === true,
  );
  const approvals = new ApprovalRegistry({ outbox, access, clock, timeoutMs: approvalTimeoutMs, logger });
  const controls = options.stores.controls ?? createMemoryControlsStore();
  const budgets = new Budgets({ caps: limits.budgets ?? {}, store: controls, access, clock, logger });
  const background = new Background(logger);
  const rules = new Rules(controls, clock);
  const rulePrompts = new RulePrompts({ approvals, rules, access, outbox, background, logger });
  const notify = (chat: string, text: string) => background.track(outbox.send(chat, text), 'notice');
  const registry = new SessionRegistry({
    sessions,
    stateStore,
    // The session's one timer ends an unanswered approval; the registry edits the prompt when it does.
    permissionTimeoutMs: approvalTimeoutMs,
    idleReleaseMs: limits.idleReleaseMs ?? DEFAULTS.idleReleaseMs,
    clock,
    logger,
    notify,
    corruptNotice: say.corruptSession,
  });
  // Single process: a turn still recorded at start-up was cut by a restart of this very process.
  // Replicas: by a replica that died or stalled, which may or may not have restarted.
  // A reply that waits for an approval is not lost: its prompt still answers, so nothing is said.
  const announce = (turn: ActiveTurn) => {
    if (cluster) options.observer?.chatTakenOver?.(turn.chat);
    const told = waitsForApproval(sessions.sessionStore, turn.sessionId).then((waiting) => {
      const where = { chat: turn.chat, sessionId: turn.sessionId };
      if (waiting)
        return logger.info(where, 'a reply cut off while an approval waits; its prompt still answers');
      const why = cluster ? 'a replica that stopped responding' : 'a restart';
      logger.warn(where, `reply was cut off by ${why}`);
      notify(turn.chat, cluster ? say.replicaCut : say.crashNotice);
    });
    background.track(told, 'notice');
  };
  const replicaOptions = cluster && {
    lease: cluster.lease,
    bus: cluster.bus,
    ttlMs: cluster.leaseTtlMs ?? DEFAULTS.leaseTtlMs,
    leaseWaitMs: cluster.leaseWaitMs ?? DEFAULTS.leaseWaitMs,
    answerTimeoutMs: cluster.answerTimeoutMs ?? DEFAULTS.answerTimeoutMs,
    stateStore,
    access,
    clock,
    logger,
  };
  const saveHealth = new SaveHealth();
  // Assigned right below: a schedule's run goes to the router, which holds the scheduler for its commands.
  let fireScheduled: (schedule: Parameters<ChatRouter['runScheduled']>[0]) => Promise<void> = async () => {};
  const scheduleOptions = options.schedules;
  const scheduler =
    scheduleOptions &&
    new Scheduler({
      store: scheduleOptions.store,
      trigger:
        scheduleOptions.trigger ??
        new LocalTrigger({
          store: scheduleOptions.store,
          clock,
          logger: logger.child({ component: 'schedules' }),
        }),
      ...(scheduleOptions.timezone ? { timezone: scheduleOptions.timezone } : {}),
      ...(scheduleOptions.graceMs === undefined ? {} : { graceMs: scheduleOptions.graceMs }),
      ...(scheduleOptions.busy ? { busy: scheduleOptions.busy } : {}),
      fire: (schedule) => fireScheduled(schedule),
      tell: notify,
      clock,
      logger,
    });
  // The bot's shared parts, built once: the router takes them all, each chat, turn and command its share.
  const context: BotContext = {
    sessions,
    registry,
    saveHealth,
    stateStore,
    outbox,
    approvals,
    access,
    background,
    queueLimit,
    approvalTimeoutMs,
    budgets,
    rules,
    rulePrompts,
    clock,
    logger,
    ...(options.voice ? { voice: options.voice } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(scheduler ? { scheduler } : {}),
    backgroundRuns: new BackgroundRuns({
      registry,
      outbox,
      background,
      logger,
      isOperatorChat: (chat) => access.isOperatorChat(chat),
      openThread: (chat, text) =>
        adapters.find((a) => a.platform === chatPlatform(chat))?.openThread?.(chat, text) ??
        Promise.resolve(undefined),
      // The router is made right here; a run only starts once a command reaches it.
      enqueue: (chat, item): boolean => router.enqueue(chat, item),
    }),
    ...(scheduleOptions?.unattendedApprovals
      ? { unattendedApprovals: scheduleOptions.unattendedApprovals }
      : {}),
    ...(replicaOptions
      ? { gate: replicaGates(replicaOptions, (chat) => registry.forget(chat), announce) }
      : {}),
  };
  const router: ChatRouter = new ChatRouter(context);
  fireScheduled = (schedule) => router.runScheduled(schedule);
  const replicas = replicaOptions && new ReplicaRouter(router, replicaOptions);
  const routing: { route(event: ChatEvent, sender: Sender): Promise<void> } = replicas ?? router;
  const admission = { access, stateStore, logger, answer: (e: ChatEvent, t: string) => router.answer(e, t) };
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  const ordered = intake();

  async function handle(event: ChatEvent): Promise<void> {
    const sender = await admit(admission, event);
    if (sender) await routing.route(event, sender);
  }

  const bot: Bot = {
    outbox,
    saveHealth,
    idle: () => router.idle(),
    stats: () => ({
      ...router.activity(),
      loadedSessions: registry.openCount,
      pendingApprovals: approvals.size,
    }),
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
      const leftover = replicas ? await replicas.start(announce) : await endLeftoverTurns(stateStore);
      await Promise.all(
        adapters.map((a) => a.start((event) => bot.dispatch(event), accessGate(access, a.platform, logger))),
      );
      leftover.forEach(announce);
      // After the adapters: a run missed while the bot was down can post its line now.
      await scheduler?.start();
    },
    async stop() {
      if (state === 'stopping' || state === 'stopped') return;
      state = 'stopping';
      replicas?.close();
      await scheduler?.stop();
      // A prompt whose turn is stored as waiting outlives the process; the rest are denied below.
      approvals.leaveOpen();
      router.stopAll(say.shuttingDown);
      await router.idle();
      approvals.closeAll(say.shuttingDown);
      await approvals.idle();
      await outbox.idle();
      await Promise.allSettled(adapters.map((a) => a.stop()));
      await registry.closeAll();
      await sessions.sessionStore.flush();
      await stateStore.flush();
      await scheduleOptions?.store.flush();
      await controls.flush();
      state = 'stopped';
      logger.info('bot stopped');
    },
  };
  return bot;
}

/** Every turn recorded as running when this single process starts: a restart cut each one. */
async function endLeftoverTurns(stateStore: BotStateStore): Promise<ActiveTurn[]> {
  const turns = await stateStore.activeTurns();
  for (const turn of turns) await stateStore.endTurn(turn.chat);
  return turns;
}
