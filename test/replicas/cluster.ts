/**
 * Two ready bots (`src/main.ts` as `npm start` runs it, each a child process)
 * sharing one PostgreSQL schema, in Telegram webhook mode behind a "load
 * balancer": the test decides which replica's webhook port each update is
 * posted to. The fake Bot API and the fake Anthropic server see both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Update } from 'grammy/types';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/telegram/index.js';
import { type ChildBot, startChildBot } from '../reliability/child-bot.js';
import { testSchemas } from '../store-postgres/database.js';

export const TOKEN = '515151:REPLICAS-telegram-token-abc';
export const API_KEY = 'sk-ant-replicas-key-0123456789abcdef';
export const SECRET = 'replicas-webhook-secret';

/** One replica: its child process and the local port its webhook listens on. */
export interface Replica {
  name: string;
  bot: ChildBot;
  port: number;
  /** The replica's id, as its leases and log lines carry it. */
  id: string;
}

/** A running pair of replicas and the fakes around them. */
export interface Cluster {
  telegram: FakeTelegram;
  anthropic: FakeAnthropic;
  replicas: [Replica, Replica];
  schema: string;
  /** The load balancer: posts the update to this replica's webhook; returns its update_id. */
  deliver(to: Replica, update: Omit<Update, 'update_id'>): number;
  /** Posts a raw update (a redelivery keeps its update_id); resolves with the HTTP status. */
  redeliver(to: Replica, update: Update): Promise<number>;
  texts(chatId: number): string[];
  close(): Promise<void>;
}

/** Starts the fakes and two replicas over a fresh schema. `allowed`: Telegram user ids. */
export async function startCluster(
  url: string,
  allowed: number[],
  leaseTtlSeconds: number,
): Promise<Cluster> {
  const telegram = await startFakeTelegram({ token: TOKEN });
  const anthropic = await startFakeAnthropic();
  const schemas = testSchemas(url);
  const schema = schemas.name();
  const root = await mkdtemp(join(tmpdir(), 'switchboard-replicas-'));
  const env = (name: string) => ({
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: telegram.url,
    TELEGRAM_WEBHOOK_URL: 'https://bot.example.test/telegram',
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_WEBHOOK_PORT: '0',
    SWITCHBOARD_DATABASE_URL: url,
    SWITCHBOARD_DATABASE_SCHEMA: schema,
    SWITCHBOARD_LEASE_TTL: String(leaseTtlSeconds),
    // Each replica has a data directory of its own: nothing may be shared through files.
    SWITCHBOARD_DATA_DIR: join(root, name, 'data'),
    SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
    SWITCHBOARD_ALLOWED_USERS: allowed.map((id) => `telegram:${id}`).join(','),
    SWITCHBOARD_LOG_LEVEL: 'debug',
  });
  const children: ChildBot[] = [];
  const start = async (name: string): Promise<Replica> => {
    const bot = startChildBot(env(name), root);
    children.push(bot);
    const listening = JSON.parse(await bot.waitForLog(/Telegram webhook listening/)) as {
      port: number;
    };
    const started = JSON.parse(await bot.waitForLog(/switchboard started/)) as { replica: string };
    return { name, bot, port: listening.port, id: started.replica };
  };
  try {
    // One after the other, so two first-time migrations do not race on a fresh schema.
    const a = await start('a');
    const b = await start('b');
    return {
      telegram,
      anthropic,
      replicas: [a, b],
      schema,
      deliver(to, update) {
        const hook = telegram.state.webhook;
        if (!hook) throw new Error('no replica registered the webhook');
        telegram.state.webhook = { ...hook, url: `http://127.0.0.1:${to.port}/` };
        return telegram.pushUpdate(update);
      },
      async redeliver(to, update) {
        const response = await fetch(`http://127.0.0.1:${to.port}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
          body: JSON.stringify(update),
        });
        await response.arrayBuffer();
        return response.status;
      },
      texts: (chatId) => telegram.botMessages(chatId).map((m) => m.text),
      async close() {
        await Promise.all(children.map((c) => c.kill()));
        await telegram.close();
        await anthropic.close();
        await schemas.cleanup();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(children.map((c) => c.kill()));
    await telegram.close();
    await anthropic.close();
    await schemas.cleanup();
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}

/** The text of the last user message of a Messages API request body. */
// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
export function lastUserText(body: any): string {
  const last = body.messages.at(-1);
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((b: { type: string }) => b.type === 'text')
    .map((b: { text: string }) => b.text)
    .join('\n');
}

/** Log lines (parsed) of a replica that match `pattern`. */
export function logged(replica: Replica, pattern: RegExp): Array<Record<string, unknown>> {
  return replica.bot.lines.filter((l) => pattern.test(l)).map((l) => JSON.parse(l));
}
