/**
 * One call to get a real bot core on a RecordingAdapter and a VirtualClock,
 * talking to a real InteractiveSession through the real AnthropicProvider
 * against the loopback fake Messages API, with real file stores in a temp
 * directory. Reused by the bot-core tests and by later end-to-end tests.
 *
 * @example
 * const h = await startBotHarness({ allowedUsers: ['test:alice'] });
 * await h.message('hello');
 * await h.until(() => h.texts().includes('You said: hello'));
 * await h.close();
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessOptions } from '../../src/bot/access.js';
import type {
  Attachment,
  ChatAdapter,
  ChatCapabilities,
  ChatEvent,
  ChatUser,
} from '../../src/bot/adapter-contract.js';
import { createBot } from '../../src/bot/index.js';
import type { Bot, BotLimits, ClusterOptions, ScheduleOptions } from '../../src/bot/options.js';
import type { VoiceOptions } from '../../src/bot/voice.js';
import { VirtualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import { createFileScheduleStore } from '../../src/schedule/file-store.js';
import { createSessionFactory, type SessionFactoryOptions } from '../../src/session/factory.js';
import {
  type ControlsStore,
  createBotStateStore,
  createControlsStore,
  createUserSessionStore,
} from '../../src/store/index.js';
import type { BotStateStore, SessionStore } from '../../src/store/types.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { RecordingAdapter } from '../fakes/recording-adapter.js';

/** The API key the harness gives the provider; tests grep logs and chats for it. */
export const HARNESS_API_KEY = 'sk-ant-harness-secret-key-0123456789';

/** Users the harness knows by name. */
export const USERS = {
  alice: { id: 'alice', name: 'Alice' },
  bob: { id: 'bob', name: 'Bob' },
  admin: { id: 'root', name: 'Admin' },
  stranger: { id: 'eve', name: 'Eve' },
} satisfies Record<string, ChatUser>;

/**
 * Options of {@link startBotHarness}, flat for short tests: who may use the
 * bot (access), its limits, any session option the factory takes, stores,
 * the cluster, plus harness wiring.
 */
export interface HarnessOptions
  extends AccessOptions,
    BotLimits,
    Partial<Omit<SessionFactoryOptions, 'provider' | 'clock' | 'logger' | 'sessionStore'>> {
  sessionStore?: SessionStore;
  stateStore?: BotStateStore;
  /** Spend and budgets; default a file store in the data root (kept across restart()). */
  controlsStore?: ControlsStore;
  /** Run as one replica among several. */
  cluster?: ClusterOptions;
  /** Reuse a data root (restart over the same files). */
  root?: string;
  /** Reuse a running fake (restart); it is then not closed by this harness. */
  fakeAnthropic?: FakeAnthropic;
  capabilities?: Partial<ChatCapabilities>;
  /** The recording adapters' chats have threads (`openThread`). */
  threads?: boolean;
  /** Extra platforms, each served by its own RecordingAdapter (the first adapter is `test`). */
  platforms?: string[];
  /** More adapters (a real platform adapter against its fake), next to the recording ones. */
  extraAdapters?: ChatAdapter[];
  /** Call bot.start(); default true. */
  start?: boolean;
  /** Voice notes: the bot's voice options, or a function of the harness clock that makes them. */
  voice?: VoiceOptions | ((clock: VirtualClock) => VoiceOptions);
  /** Schedule settings over the default (a file store in the data directory, timers on the virtual clock). */
  schedules?: Partial<ScheduleOptions>;
  /** Where the virtual clock starts (ms since the epoch); default 2026-01-01T00:00:00Z. */
  startAt?: number;
  /** The virtual clock to use (a schedule trigger built before the harness needs it). */
  clock?: VirtualClock;
}

/** What {@link startBotHarness} returns. */
export interface BotHarness {
  bot: Bot;
  /** The `test` platform's adapter. */
  adapter: RecordingAdapter;
  /** Every adapter by platform (`test` plus `options.platforms`). */
  adapters: Record<string, RecordingAdapter>;
  fakeAnthropic: FakeAnthropic;
  clock: VirtualClock;
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  dirs: { root: string; data: string; sessions: string; workspace: string };
  /** Every log line the bot wrote (JSON strings). */
  logs: string[];
  /** The default chat key, `test:100`. */
  chat: string;
  /** Delivers a message; returns its message id. */
  message(
    text: string,
    options?: EventOptions & {
      attachments?: Attachment[];
      replyTo?: { messageId: string; text?: string; fromBot?: boolean };
    },
  ): Promise<string>;
  /** Delivers a command; with `respond: true` the answers given through the responder are returned. */
  command(name: string, args?: string, options?: EventOptions & { respond?: boolean }): Promise<string[]>;
  /** Runs a command through a responder and waits for its one answer. */
  ask(name: string, args?: string, options?: EventOptions): Promise<string>;
  /** Presses a button; returns the array the responder's answers land in. */
  press(payload: string, options?: EventOptions): Promise<string[]>;
  edit(messageId: string, text: string, options?: EventOptions): Promise<void>;
  deliver(event: ChatEvent): Promise<void>;
  /** Drives the virtual clock and real I/O until `predicate` holds. */
  until(predicate: () => boolean | Promise<boolean>, label?: string, stepMs?: number): Promise<void>;
  /** Drives everything until the bot has nothing running or queued. */
  settle(): Promise<void>;
  /** Texts of the chat's messages, in order. */
  texts(chat?: string): string[];
  /** A second bot over the same data root and fake (the first is left as it is). */
  restart(options?: HarnessOptions): Promise<BotHarness>;
  /** Stops the bot gracefully, driving the clock; the files stay. */
  stop(): Promise<void>;
  /** Stops the bot and closes the fake; removes the data root when it made it. */
  close(): Promise<void>;
}

interface EventOptions {
  chat?: string;
  user?: ChatUser;
  deliveryId?: string;
  messageId?: string;
}

let messageSeq = 1000;

/** The harness's default model answer: `<author> said: <text>` for the last user message. */
// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
export function echo(body: any): string {
  const content = body?.messages?.at(-1)?.content;
  const blocks: Array<{ type: string; text?: string }> =
    typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
  const texts = blocks.filter((b) => b.type === 'text').map((b) => b.text ?? '');
  // The last authored text (the session may add a cut-off notice after it).
  for (const text of texts.reverse()) {
    const match = /^\[([^\]]+)\] ([\s\S]*)$/.exec(text);
    if (match) return `${match[1]} said: ${match[2]}`;
  }
  return `You said: ${texts[0] ?? ''}`;
}

/** Builds {bot, adapter, fakeAnthropic, dirs, ...}; see {@link BotHarness}. */
export async function startBotHarness(options: HarnessOptions = {}): Promise<BotHarness> {
  const ownsRoot = options.root === undefined;
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'switchboard-bot-')));
  const dirs = {
    root,
    data: join(root, 'data'),
    sessions: join(root, 'data', 'sessions'),
    workspace: join(root, 'ws'),
  };
  const ownsFake = options.fakeAnthropic === undefined;
  const fakeAnthropic = options.fakeAnthropic ?? (await startFakeAnthropic());
  // "Alice said: hi" rather than the fake's "You said: [Alice] hi": no Markdown to escape in assertions.
  if (ownsFake) fakeAnthropic.setDefault((body) => ({ text: echo(body) }));
  const clock = options.clock ?? new VirtualClock(options.startAt ?? Date.parse('2026-01-01T00:00:00Z'));
  const adapters: Record<string, RecordingAdapter> = {};
  for (const platform of ['test', ...(options.platforms ?? [])]) {
    adapters[platform] = new RecordingAdapter({
      clock,
      platform,
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      ...(options.threads ? { threads: true } : {}),
    });
  }
  const adapter = adapters.test as RecordingAdapter;
  const logs: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets: [HARNESS_API_KEY],
    destination: { write: (line: string) => logs.push(line) } as never,
  });
  const sessionStore = options.sessionStore ?? createUserSessionStore(dirs.sessions, { logger });
  const stateStore = options.stateStore ?? createBotStateStore(dirs.data, { logger, clock });
  const controlsStore = options.controlsStore ?? createControlsStore(dirs.data, { logger, clock });
  const {
    root: _r,
    fakeAnthropic: _f,
    capabilities: _c,
    start: _s,
    platforms: _p,
    schedules,
    startAt: _at,
    threads: _threads,
    clock: _clock,
    extraAdapters = [],
    sessionStore: _ss,
    stateStore: _st,
    controlsStore: _cs,
    cluster,
    allowedUsers = ['test:alice', 'test:bob'],
    admins = ['test:root'],
    linkedUsers,
    trustedPlatforms,
    approvers,
    selfApproval,
    approvalTimeoutMs,
    idleReleaseMs,
    queueLimit,
    budgets,
    voice,
    ...sessionOptions
  } = options;
  const bot = createBot({
    adapters: [...Object.values(adapters), ...extraAdapters],
    sessions: createSessionFactory({
      ...sessionOptions,
      provider: new AnthropicProvider({ apiKey: HARNESS_API_KEY, baseURL: fakeAnthropic.url, maxRetries: 0 }),
      sessionStore,
      workspace: dirs.workspace,
      clock,
      logger,
    }),
    stores: { state: stateStore, controls: controlsStore },
    access: { allowedUsers, admins, linkedUsers, trustedPlatforms, approvers, selfApproval },
    limits: defined({ approvalTimeoutMs, idleReleaseMs, queueLimit, budgets }),
    ...(cluster ? { cluster } : {}),
    ...(voice ? { voice: typeof voice === 'function' ? voice(clock) : voice } : {}),
    schedules: { store: createFileScheduleStore(dirs.data, { logger, clock }), ...schedules },
    clock,
    logger,
  });
  if (options.start !== false) await bot.start();
  const chat = 'test:100';

  const base = (o: EventOptions = {}) => ({
    chat: o.chat ?? chat,
    user: o.user ?? USERS.alice,
    ...(o.deliveryId === undefined ? {} : { deliveryId: o.deliveryId }),
  });

  const until = async (predicate: () => boolean | Promise<boolean>, label = 'condition', stepMs = 20) => {
    for (let i = 0; i < 5_000; i++) {
      if (await predicate()) return;
      await clock.advance(stepMs);
      // Yield a real event-loop turn (timers phase included) so sockets and file
      // writes make progress; virtual time then moves ~stepMs per real millisecond.
      await new Promise((r) => setTimeout(r, 0));
    }
    throw new Error(`bot harness: ${label} never happened`);
  };

  const h: BotHarness = {
    bot,
    adapter,
    adapters,
    fakeAnthropic,
    clock,
    sessionStore,
    stateStore,
    dirs,
    logs,
    chat,
    async message(text, o = {}) {
      const messageId = o.messageId ?? String(messageSeq++);
      await h.deliver({
        type: 'message',
        ...base(o),
        text,
        messageId,
        ...(o.attachments ? { attachments: o.attachments } : {}),
        ...(o.replyTo ? { replyTo: o.replyTo } : {}),
      });
      return messageId;
    },
    async command(name, args = '', o = {}) {
      const answers: string[] = [];
      await h.deliver({
        type: 'command',
        ...base(o),
        name,
        args,
        ...(o.respond
          ? {
              respond: async ({ text }: { text: string }) => {
                answers.push(text);
              },
            }
          : {}),
      });
      return answers;
    },
    async ask(name, args = '', o = {}) {
      const answers = await h.command(name, args, { ...o, respond: true });
      await until(() => answers.length > 0, `/${name} answer`);
      if (answers.length !== 1) throw new Error(`/${name} answered ${answers.length} times`);
      return answers[0] as string;
    },
    async press(payload, o = {}) {
      const answers: string[] = [];
      await h.deliver({
        type: 'button',
        ...base(o),
        ...(o.messageId === undefined ? {} : { messageId: o.messageId }),
        payload,
        respond: async ({ text }) => {
          answers.push(text);
        },
      });
      return answers;
    },
    async edit(messageId, text, o = {}) {
      await h.deliver({ type: 'edit', ...base(o), messageId, text });
    },
    deliver: (event) => {
      const target = adapters[event.chat.slice(0, event.chat.indexOf(':'))];
      if (!target) throw new Error(`bot harness: no adapter for ${event.chat}`);
      return target.deliver(event);
    },
    until,
    async settle() {
      let done = false;
      void (async () => {
        await bot.idle();
        await bot.outbox.idle();
        done = true;
      })();
      await until(() => done, 'bot idle');
    },
    texts: (c = chat) => (adapters[c.slice(0, c.indexOf(':'))] ?? adapter).chatMessages(c).map((m) => m.text),
    restart: (o = {}) => startBotHarness({ root, fakeAnthropic, ...o }),
    async stop() {
      let stopped = false;
      void bot.stop().finally(() => {
        stopped = true;
      });
      await until(() => stopped, 'bot stopped');
    },
    async close() {
      await h.stop();
      if (ownsFake) await fakeAnthropic.close();
      if (ownsRoot) await rm(root, { recursive: true, force: true });
    },
  };
  return h;
}

/** The entries whose value is set (exactOptionalPropertyTypes keeps `undefined` out of optional keys). */
function defined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}
