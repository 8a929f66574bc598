/**
 * Part 5, second half: how much of a streamed reply is rendered again. A
 * reply is streamed through the real outbox into a simulated platform on a
 * VirtualClock (as the streaming part does), and the characters handed to
 * the renderer are counted; divided by the reply's length, 1 means each
 * character was rendered once. Replies: the long prose answer of the
 * streaming part, a 20 KB table and a 20 KB list written with no blank
 * line (one block that grows until the end).
 */

import { renderWork } from '../src/bot/format/render-source.js';
import { OutboxStrategy } from './ours.js';
import { type PlatformCase, platformCases } from './platforms.js';
import { longAnswer, type ReplyProfile, timedDeltas } from './profiles.js';
import { type Cell, round, table } from './stats.js';
import { runOne } from './streaming.js';

/** One reply on one platform. */
export interface StreamedRenderFigures {
  platform: string;
  reply: string;
  chars: number;
  /** Characters handed to the renderer over the whole reply. */
  renderedChars: number;
  /** renderedChars / chars. */
  ratio: number;
}

function grownReply(name: string, text: string): ReplyProfile {
  const { steps, endAt } = timedDeltas(text, 60, 7, { bursts: true });
  return { name, steps, text, durationMs: endAt };
}

function tableText(chars: number): string {
  let md = '| step | what | took |\n|---|---|---:|';
  for (let i = 0; md.length < chars; i++) md += `\n| ${i} | renders the **row** ${i} | ${i * 3} ms |`;
  return `${md}\n`;
}

function listText(chars: number): string {
  let md = '';
  for (let i = 0; md.length < chars; i++) md += `- item ${i}: keeps *its* place in the list\n`;
  return md;
}

/** The replies measured: prose with blank lines, and two single blocks that grow to the end. */
export function streamedReplies(): ReplyProfile[] {
  const long = longAnswer();
  return [
    { ...long, name: 'prose 24 KB' },
    grownReply('table 20 KB', tableText(20_000)),
    grownReply('list 20 KB', listText(20_000)),
  ];
}

async function measure(pcase: PlatformCase, profile: ReplyProfile): Promise<StreamedRenderFigures> {
  const before = renderWork.chars;
  await runOne(pcase, profile, 100, (platform) => new OutboxStrategy(platform, pcase.chat));
  const renderedChars = renderWork.chars - before;
  return {
    platform: pcase.name,
    reply: profile.name,
    chars: profile.text.length,
    renderedChars,
    ratio: round(renderedChars / profile.text.length, 2),
  };
}

/** Streams each reply on the platforms that render (edited messages: Telegram HTML, Discord). */
export async function runStreamedRendering(): Promise<StreamedRenderFigures[]> {
  const cases = platformCases().filter((c) => c.name === 'telegram-group-html' || c.name === 'discord');
  const out: StreamedRenderFigures[] = [];
  for (const pcase of cases) for (const profile of streamedReplies()) out.push(await measure(pcase, profile));
  return out;
}

/** The printed table of streamed rendering. */
export function streamedRenderingTable(rows: readonly StreamedRenderFigures[]): string {
  const cells: Cell[][] = rows.map((r) => [r.platform, r.reply, r.chars, r.renderedChars, r.ratio]);
  return table(['platform', 'reply', 'chars', 'chars rendered', 'rendered / reply'], cells);
}
