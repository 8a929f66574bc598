/**
 * Part 4: end to end through the real grammy bot. switchboard is started the
 * way `npm start` starts it (loadConfig + startSwitchboard) against the
 * loopback fake Bot API, with its flood limits on at Telegram's real numbers
 * (nothing scaled), and the fake Messages API. Many private chats each take
 * several turns at once; every reply is checked to arrive whole.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/index.js';
import { startSwitchboard } from '../src/app.js';
import { silentLogger } from '../src/logger.js';
import { startFakeAnthropic } from '../test/fakes/anthropic.js';
import { messageUpdate, type RecordedCall, startFakeTelegram } from '../test/fakes/telegram/index.js';
import { type Cell, check, quantile, round, type TargetCheck, table } from './stats.js';

/** Options for {@link runE2eTelegram}. */
export interface E2eOptions {
  chats?: number;
  turnsPerChat?: number;
  /** Chunks per reply and the pause before each (real time). */
  chunks?: number;
  chunkDelayMs?: number;
  /** Give up after this long (the figures then show what was delivered). */
  timeoutMs?: number;
}

/** Figures of part 4. */
export interface E2eFigures {
  chats: number;
  turnsPerChat: number;
  turnsDone: number;
  wallSeconds: number;
  turnsPerSecond: number;
  firstVisibleP95Ms: number;
  firstVisibleMedianMs: number;
  turnP95Ms: number;
  rateLimited: number;
  /** 429 answers per Bot API method. */
  rateLimitedBy: Record<string, number>;
  /** Which of the fake's limits each 429 most likely hit (accepted calls in the second before it). */
  rateLimitedRule: { global: number; chat: number; message: number; other: number };
  repliesWhole: number;
  botApiCalls: number;
  targets: TargetCheck[];
}

const WORDS = 'the reply streams into a draft and ends as one message with every word in place'.split(' ');

/** The reply the fake model gives to turn `tag`: plain words, so every rendering shows them as they are. */
function replyFor(tag: string, chunks: number): string[] {
  const out: string[] = [`Answer ${tag}:`];
  for (let i = 1; i < chunks; i++) out.push(` ${WORDS.slice(0, 6 + (i % 5)).join(' ')} ${i}.`);
  return out;
}

interface Turn {
  chat: number;
  index: number;
  tag: string;
  expected: string;
  pushedAt: number;
  visibleAt?: number;
  doneAt?: number;
}

const FLOOD = /^(sendMessage|sendRichMessage|editMessageText|sendMessageDraft|sendRichMessageDraft)$/;

/**
 * Attributes each 429 to the fake's limit it most likely hit, from the calls
 * it accepted in the second before: 30 for the whole bot, 3 in one private
 * chat, 1 on the same message or draft.
 */
function classify429(calls: readonly RecordedCall[]): E2eFigures['rateLimitedRule'] {
  const out = { global: 0, chat: 0, message: 0, other: 0 };
  const accepted = calls.filter((c) => c.outcome === 'ok' && FLOOD.test(c.method));
  const target = (c: RecordedCall) =>
    c.method === 'editMessageText'
      ? `m${c.params.message_id}`
      : /Draft$/.test(c.method)
        ? `d${c.params.draft_id}`
        : undefined;
  for (const c of calls) {
    if (c.outcome !== 429) continue;
    const recent = accepted.filter((a) => a.at > c.at - 1000 && a.at <= c.at);
    const chat = recent.filter((a) => String(a.params.chat_id) === String(c.params.chat_id));
    const t = target(c);
    if (t !== undefined && chat.some((a) => target(a) === t)) out.message++;
    else if (chat.length >= 3) out.chat++;
    else if (recent.length >= 30) out.global++;
    else out.other++;
  }
  return out;
}

/** Runs part 4; closes every server and removes its temp directory. */
export async function runE2eTelegram(options: E2eOptions = {}): Promise<E2eFigures> {
  const chats = options.chats ?? 200;
  const turnsPerChat = options.turnsPerChat ?? 3;
  const chunks = options.chunks ?? 8;
  const chunkDelayMs = options.chunkDelayMs ?? 100;
  const telegram = await startFakeTelegram();
  const anthropic = await startFakeAnthropic();
  const root = await mkdtemp(join(tmpdir(), 'switchboard-bench-'));
  anthropic.setDefault((body) => {
    const tag = /turn-\d+-\d+/.exec(JSON.stringify(body.messages?.at?.(-1) ?? ''))?.[0] ?? 'unknown';
    return { text: replyFor(tag, chunks), chunkDelayMs };
  });
  const users = Array.from({ length: chats }, (_, i) => 5000 + i);
  const env = {
    ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789',
    ANTHROPIC_BASE_URL: anthropic.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
    SWITCHBOARD_DATA_DIR: join(root, 'data'),
    SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
    SWITCHBOARD_ALLOWED_USERS: users.map((u) => `telegram:${u}`).join(','),
  };
  const app = await startSwitchboard(loadConfig({ env, argv: [], cwd: root }), { logger: silentLogger });
  const turns: Turn[] = [];
  const current = new Map<number, Turn>();
  const push = (chat: number, index: number) => {
    const tag = `turn-${chat}-${index}`;
    const turn: Turn = { chat, index, tag, expected: replyFor(tag, chunks).join(''), pushedAt: Date.now() };
    turns.push(turn);
    current.set(chat, turn);
    telegram.pushUpdate(
      messageUpdate({ chatId: chat, user: { id: chat, first_name: `U${chat}` } }, `${tag} go`),
    );
  };
  let seen = 0;
  let done = 0;
  const total = chats * turnsPerChat;
  // One watcher over the fake's call log: a reply is visible once a draft or
  // message of its chat shows its first words, whole once a message holds it all.
  let watching = false;
  const watch = (): boolean => {
    // Pushing an update notifies the fake's waiters, which calls this again: no re-entry.
    if (watching) return false;
    watching = true;
    const next: Turn[] = [];
    const calls = telegram.state.calls;
    for (; seen < calls.length; seen++) {
      const call = calls[seen]!;
      if (call.outcome !== 'ok') continue;
      const chat = Number(call.params.chat_id);
      const turn = current.get(chat);
      if (!turn || turn.doneAt !== undefined) continue;
      const now = Date.now();
      const messages = telegram.botMessages(chat).filter((m) => !m.deleted);
      const drafts = telegram.draftsIn(chat);
      if (
        turn.visibleAt === undefined &&
        (messages.some((m) => m.text.includes(turn.tag)) ||
          drafts.some((d) => d.texts.some((t) => t.includes(turn.tag))))
      ) {
        turn.visibleAt = now;
      }
      if (messages.some((m) => m.text.includes(turn.expected))) {
        turn.doneAt = now;
        done++;
        if (turn.index + 1 < turnsPerChat) next.push(turn);
      }
    }
    watching = false;
    for (const turn of next) push(turn.chat, turn.index + 1);
    return done >= total;
  };
  const started = Date.now();
  try {
    for (const u of users) push(u, 0);
    await telegram.waitFor(watch, options.timeoutMs ?? 240_000).catch(() => undefined);
    const wallSeconds = (Date.now() - started) / 1000;
    const rateLimitedBy: Record<string, number> = {};
    for (const c of telegram.state.calls) {
      if (c.outcome === 429) rateLimitedBy[c.method] = (rateLimitedBy[c.method] ?? 0) + 1;
    }
    const rateLimitedRule = classify429(telegram.state.calls);
    const finished = turns.filter((t) => t.doneAt !== undefined);
    const firstVisible = turns.filter((t) => t.visibleAt !== undefined).map((t) => t.visibleAt! - t.pushedAt);
    const turnTimes = finished.map((t) => t.doneAt! - t.pushedAt);
    const p95 = round(quantile(firstVisible, 0.95), 0);
    return {
      chats,
      turnsPerChat,
      turnsDone: finished.length,
      wallSeconds: round(wallSeconds, 1),
      turnsPerSecond: round(finished.length / wallSeconds, 2),
      firstVisibleP95Ms: p95,
      firstVisibleMedianMs: round(quantile(firstVisible, 0.5), 0),
      turnP95Ms: round(quantile(turnTimes, 0.95), 0),
      rateLimited: telegram.rateLimited,
      rateLimitedBy,
      rateLimitedRule,
      repliesWhole: finished.length,
      botApiCalls: telegram.state.calls.length,
      targets: [
        check('429s received', telegram.rateLimited, '0', telegram.rateLimited === 0),
        check('replies delivered whole', finished.length, `= ${total}`, finished.length === total),
      ],
    };
  } finally {
    await app.stop().catch(() => undefined);
    await telegram.close();
    await anthropic.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The table printed for part 4. */
export function e2eTable(f: E2eFigures): string {
  const rows: Cell[][] = [
    ['private chats x turns', `${f.chats} x ${f.turnsPerChat}`],
    ['turns completed', f.turnsDone],
    ['wall time (s)', f.wallSeconds],
    ['turns per second', f.turnsPerSecond],
    ['time to first visible text, median (ms)', f.firstVisibleMedianMs],
    ['time to first visible text, p95 (ms)', f.firstVisibleP95Ms],
    ['time to whole reply, p95 (ms)', f.turnP95Ms],
    ['429s received', f.rateLimited],
    ...Object.entries(f.rateLimitedBy).map(([method, n]) => [`  ${method}`, n] as Cell[]),
    ...Object.entries(f.rateLimitedRule)
      .filter(([, n]) => n > 0)
      .map(([rule, n]) => [`  over the ${rule} limit`, n] as Cell[]),
    ['replies delivered whole', f.repliesWhole],
    ['Bot API calls', f.botApiCalls],
  ];
  return table(['end to end (grammy, fake Bot API, real limits)', 'value'], rows);
}
