/**
 * The platform cases of the streaming benchmark, with the capabilities each
 * real adapter declares. The adapters are built with their factories and
 * never started: nothing touches the network.
 */
import { createDiscordAdapter } from '../adapters/discord/index.js';
import { createSlackAdapter } from '../adapters/slack/index.js';
import { createTelegramAdapter } from '../adapters/telegram/index.js';
import type { ChatAdapter, ChatCapabilities, RateBudget } from '../src/bot/adapter-contract.js';

/** One chat of one platform, as its adapter declares it. */
export interface PlatformCase {
  name: string;
  platform: string;
  chat: string;
  capabilities: ChatCapabilities;
  globalBudget?: RateBudget;
}

function caseOf(name: string, adapter: ChatAdapter, chat: string): PlatformCase {
  return {
    name,
    platform: adapter.platform,
    chat,
    capabilities: adapter.capabilities(chat),
    ...(adapter.globalBudget ? { globalBudget: adapter.globalBudget } : {}),
  };
}

/** Telegram private chat, Telegram group (rich and classic HTML), Slack thread, Discord thread. */
export function platformCases(): PlatformCase[] {
  // The API roots point at a closed loopback port: unused, since nothing is started.
  const telegram = createTelegramAdapter({ token: '1:bench', apiUrl: 'http://127.0.0.1:9' });
  // A server without rich messages: classic HTML messages split at 4096.
  const classic = createTelegramAdapter({ token: '1:bench', apiUrl: 'http://127.0.0.1:9', rich: false });
  const slack = createSlackAdapter({
    token: 'xoxb-bench',
    signingSecret: 'bench',
    apiUrl: 'http://127.0.0.1:9/api/',
  });
  const discord = createDiscordAdapter({ token: 'bench' });
  return [
    caseOf('telegram-private', telegram, 'telegram:42'),
    caseOf('telegram-group', telegram, 'telegram:-1001'),
    caseOf('telegram-group-html', classic, 'telegram:-1002'),
    caseOf('slack', slack, 'slack:C1:1700000000.000100'),
    caseOf('discord', discord, 'discord:1100000000000000001'),
  ];
}

/**
 * The shortest interval a single live message can be updated at over time:
 * the per-message minimum, or the chat budget spread evenly if that is slower.
 */
export function effectiveIntervalMs(caps: ChatCapabilities): number {
  const spread = caps.budget ? caps.budget.windowMs / caps.budget.count : 0;
  return Math.max(caps.minEditIntervalMs, spread);
}

/**
 * Calls the declared pace allows over `durationMs` for a reply in `messages`
 * messages, `streams` of them opened as native streams: with a chat budget,
 * `count` per window (a full window at the start); without one, one call per
 * interval on the live message, plus one send per further message and one
 * (textless) start per native stream.
 */
export function allowedCalls(
  caps: ChatCapabilities,
  durationMs: number,
  messages: number,
  streams = 0,
): number {
  if (caps.budget) return caps.budget.count * (Math.floor(durationMs / caps.budget.windowMs) + 1);
  return Math.floor(durationMs / caps.minEditIntervalMs) + 1 + Math.max(0, messages - 1) + streams;
}
