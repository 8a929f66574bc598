/**
 * The console adapter: a terminal chat over the same bot core, so
 * switchboard can be tried with only an Anthropic key. On a terminal it has
 * a prompt with line editing and history (node:readline), replies that
 * stream in place, tool activity as dimmed lines where it happens, and
 * approvals answered by typing the number of a choice while one waits.
 * Ctrl-C stops the running reply; pressed again, it leaves. Lines starting
 * with `/` are commands; a line that is the path of an audio file is a voice
 * note. Piped input works too, line by line.
 *
 * @example
 * const adapter = createConsoleAdapter({ input: process.stdin, output: process.stdout });
 */
import { userInfo } from 'node:os';
import { createInterface, type Interface } from 'node:readline';
import type {
  Button,
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  OutboundFile,
  OutboundMessage,
  SentMessage,
} from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import { showControls } from '../../src/bot/visible-text.js';
import { formatBytes } from '../../src/bytes.js';
import { audioAttachment } from './audio-path.js';
import { HISTORY_SIZE, loadHistory, saveHistory } from './history.js';
import { cleanLine, readLine } from './input.js';
import { ReplyPrinter } from './reply-printer.js';
import { dim, Screen } from './screen.js';

/** Options for {@link createConsoleAdapter}. */
export interface ConsoleAdapterOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Display name of the operator; default the OS user name. */
  userName?: string;
  /** Where the logs go instead of the terminal, named once at the start. */
  logFile?: string;
  /** Where typed lines are kept between runs (on a terminal only); none by default. */
  historyFile?: string;
}

/** The console chat's only chat key. */
export const CONSOLE_CHAT = 'console:local';

const CAPABILITIES: ChatCapabilities = {
  maxMessageLength: 100_000,
  minEditIntervalMs: 0,
  // A terminal shows Markdown markers literally; plain text reads better.
  dialect: plain,
  // Replies arrive as a message and its edits; the reply printer shows each one once.
  nativeStream: false,
  buttonPayloadLimit: 200,
  typingIntervalMs: 0,
  // Where the session stands, after each reply, as CLI agents show it.
  replyFooter: true,
  // The operator is at this machine: a file the agent sends is shown by its path, not copied anywhere.
  maxUploadBytes: 1024 * 1024 * 1024,
  filesAsPaths: true,
  // Only the operator reads this terminal.
  privateChat: true,
};

/**
 * Design decision (what reaches the terminal): every text the chat prints
 * (replies, tool lines, approval prompts, button labels, answers, file
 * names) is written by the model or comes from its files, and a terminal
 * obeys escape sequences: an OSC 52 clipboard write, SGR 8 (conceal) that
 * hides a real approval prompt behind a fake one, cursor moves that
 * overwrite a line. So each one passes through {@link safe}, which shows C0
 * and C1 controls as markers (`⟨ESC⟩`), keeping newlines and tabs; the
 * adapter's own escape sequences (dimming, taking back a line) are added
 * after that.
 */
const safe = showControls;

/** A file name on one line: its newlines shown too. */
const oneLine = (text: string) => safe(text).replace(/\n/g, '⟨LF⟩');

/** The line for a file the agent sent: its path, exact size and type, and the caption under it. */
export function fileLine(file: OutboundFile): string {
  // Each line of the caption indented under the path.
  const caption = file.caption ? `\n  ${safe(file.caption).split('\n').join('\n  ')}` : '';
  return `📎 ${oneLine(file.path)} (${formatBytes(file.bytes.length)}, ${file.mediaType})${caption}`;
}

const PROMPT = '› ';
/** The core's line after each reply (context used), shown dimmed. */
const FOOTER = /^◔ /u;

/** A console adapter; `inputEnded` resolves when stdin closes or the operator leaves. */
export interface ConsoleAdapter extends ChatAdapter {
  readonly inputEnded: Promise<void>;
}

/** Creates the terminal chat adapter. */
export function createConsoleAdapter(options: ConsoleAdapterOptions = {}): ConsoleAdapter {
  const input = options.input ?? process.stdin;
  const screen = new Screen(options.output ?? process.stdout);
  const userName = options.userName ?? safeUserName();
  const user = { id: 'operator', name: userName };
  let rl: Interface | undefined;
  let seq = 0;
  /** The approval waiting for a typed choice, if any. */
  let offer: { messageId: string; buttons: Button[] } | undefined;
  /** Replies being written, by message id: open from their first text to the edit that takes their Stop button away. */
  const replies = new Map<string, ReplyPrinter>();
  const texts = new Map<string, string>();
  let interrupts = 0;
  let endInput!: () => void;
  const inputEnded = new Promise<void>((resolve) => {
    endInput = resolve;
  });

  const setOffer = (messageId: string, buttons: Button[][] | undefined) => {
    const flat = (buttons ?? []).flat().filter((b) => !b.stopsReply);
    if (flat.length === 0) return;
    offer = { messageId, buttons: flat };
    const choices = flat.map((b, i) => `[${i + 1}] ${oneLine(b.label)}`).join('   ');
    screen.line(`  ${choices}   (type the number)`);
    rl?.setPrompt(`${flat.length === 1 ? '1' : `1-${flat.length}`} ${PROMPT}`);
  };
  const clearOffer = (messageId: string) => {
    if (offer?.messageId !== messageId) return;
    offer = undefined;
    rl?.setPrompt(PROMPT);
  };

  const handleLine = async (sink: EventSink, raw: string) => {
    const line = cleanLine(raw);
    // The path of an audio file (even an absolute one, which starts like a command) is a voice note.
    const audio = offer || !line ? undefined : await audioAttachment(line, process.cwd());
    if (audio) {
      const messageId = `in${++seq}`;
      await sink({ type: 'message', chat: CONSOLE_CHAT, user, text: '', messageId, attachments: [audio] });
      return;
    }
    const typed = readLine(line, offer?.buttons.length ?? 0);
    const id = String(++seq);
    switch (typed.kind) {
      case 'empty':
        return;
      case 'choice': {
        const pick = offer?.buttons[typed.index];
        if (!offer || !pick) return;
        const messageId = offer.messageId;
        clearOffer(messageId);
        // A press is answered once (the contract's Responder): later calls print nothing.
        let answered = false;
        await sink({
          type: 'button',
          chat: CONSOLE_CHAT,
          user,
          payload: pick.payload,
          messageId,
          respond: async ({ text }) => {
            if (answered) return;
            answered = true;
            screen.line(`  ${safe(text)}`);
          },
        });
        return;
      }
      case 'command':
        await sink({
          type: 'command',
          chat: CONSOLE_CHAT,
          user,
          name: typed.name,
          args: typed.args,
          messageId: `in${id}`,
        });
        return;
      case 'text':
        // Text typed while choices wait goes on as a message: it answers a tool's question that
        // asks for text (the core takes it), or waits behind an approval, as on every platform.
        await sink({ type: 'message', chat: CONSOLE_CHAT, user, text: typed.text, messageId: `in${id}` });
    }
  };

  /** Ctrl-C: the first press stops the running reply, the second leaves. */
  const interrupt = (sink: EventSink) => {
    interrupts++;
    if (interrupts > 1) {
      screen.line('Bye.');
      rl?.close();
      return;
    }
    screen.line('⏹ Ctrl-C: stopping the reply (press Ctrl-C again to leave).');
    void sink({ type: 'stop', chat: CONSOLE_CHAT, user }).catch(() => undefined);
  };

  const adapter: ConsoleAdapter = {
    platform: 'console',
    inputEnded,
    capabilities: () => CAPABILITIES,
    async start(sink) {
      const terminal = screen.tty && (input as NodeJS.ReadStream).isTTY === true;
      screen.line(
        `switchboard console — you are ${oneLine(userName)}. Type a message, or /help.` +
          (terminal ? ' Ctrl-C stops a reply; twice leaves.' : ''),
      );
      if (options.logFile) screen.line(`Logs: ${oneLine(options.logFile)}`);
      const lines = createInterface({
        input,
        output: screen.promptOutput,
        terminal,
        prompt: PROMPT,
        historySize: HISTORY_SIZE,
        removeHistoryDuplicates: true,
        ...(terminal ? { history: loadHistory(options.historyFile) } : {}),
      });
      if (terminal) lines.on('history', (history: string[]) => saveHistory(options.historyFile, history));
      rl = lines;
      screen.attach(lines);
      // One line at a time, in order, as a chat platform delivers messages.
      let chain = Promise.resolve();
      lines.on('line', (line) => {
        interrupts = 0;
        screen.promptSubmitted(line);
        chain = chain
          .then(() => handleLine(sink, line))
          .catch((err: unknown) => screen.line(`  error: ${safe(String(err))}`))
          .finally(() => screen.showPrompt());
      });
      lines.on('SIGINT', () => interrupt(sink));
      lines.on('close', () => endInput());
      screen.showPrompt();
    },
    async stop() {
      rl?.close();
    },
    async send(_chat, outbound: OutboundMessage): Promise<SentMessage> {
      const message = { ...outbound, text: safe(outbound.text) };
      const messageId = `out${++seq}`;
      texts.set(messageId, message.text);
      if (isLiveReply(message)) {
        // A reply starts: the prompt stays away until it is done.
        screen.hold();
        if (screen.column !== 0) screen.write('\n');
        const printer = new ReplyPrinter(screen);
        replies.set(messageId, printer);
        printer.update(message.text);
        return { messageId };
      }
      screen.line(FOOTER.test(message.text) ? dim(message.text, screen.tty) : message.text);
      setOffer(messageId, message.buttons);
      screen.showPrompt();
      return { messageId };
    },
    async edit(_chat, messageId, outbound) {
      const message = { ...outbound, text: safe(outbound.text) };
      const printer = replies.get(messageId);
      if (printer) {
        if (isLiveReply(message) || message.buttons === undefined) {
          printer.update(message.text);
          return;
        }
        replies.delete(messageId);
        printer.end(message.text);
        texts.set(messageId, message.text);
        screen.release();
        return;
      }
      const before = texts.get(messageId);
      texts.set(messageId, message.text);
      if (message.buttons?.length === 0) clearOffer(messageId);
      if (before !== message.text) {
        // An outcome added under a prompt shows as that line alone, not the prompt again.
        const added = before !== undefined && message.text.startsWith(before);
        screen.line(added ? `  ${message.text.slice(before.length).trim()}` : `  ↳ ${message.text}`);
      }
      setOffer(messageId, message.buttons);
      screen.showPrompt();
    },
    async delete(_chat, messageId) {
      if (replies.delete(messageId)) screen.release();
    },
    async typing() {},
    async sendFile(_chat, file) {
      screen.line(fileLine(file));
      screen.showPrompt();
      return { messageId: `out${++seq}` };
    },
    describeChat: () => 'this terminal',
  };
  return adapter;
}

/** A streaming reply carries the Stop button until its final edit. */
function isLiveReply(message: OutboundMessage): boolean {
  return (message.buttons ?? []).some((row) => row.some((b) => b.stopsReply));
}

function safeUserName(): string {
  try {
    return userInfo().username || 'operator';
  } catch {
    return 'operator';
  }
}
