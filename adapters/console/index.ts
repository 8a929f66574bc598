/**
 * The console adapter: a terminal chat over the same bot core, so
 * switchboard can be tried with only an Anthropic key. Lines starting with
 * `/` are commands; approval buttons appear as numbered choices answered by
 * typing the number. It reads stdin line by line, TTY or not.
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
  OutboundMessage,
  SentMessage,
  StreamHandle,
} from '../../src/bot/adapter-contract.js';
import { GrowingMessage } from './terminal.js';

/** Options for {@link createConsoleAdapter}. */
export interface ConsoleAdapterOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Display name of the operator; default the OS user name. */
  userName?: string;
}

/** The console chat's only chat key. */
export const CONSOLE_CHAT = 'console:local';

const CAPABILITIES: ChatCapabilities = {
  maxMessageLength: 100_000,
  minEditIntervalMs: 0,
  // A terminal shows Markdown markers literally; plain text reads better.
  dialect: 'plain',
  nativeStream: true,
  buttonPayloadLimit: 200,
  typingIntervalMs: 0,
};

/** A console adapter; `inputEnded` resolves when stdin closes. */
export interface ConsoleAdapter extends ChatAdapter {
  readonly inputEnded: Promise<void>;
}

/** Creates the terminal chat adapter. */
export function createConsoleAdapter(options: ConsoleAdapterOptions = {}): ConsoleAdapter {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const userName = options.userName ?? safeUserName();
  const write = (s: string) => {
    output.write(s);
  };
  let rl: Interface | undefined;
  let seq = 0;
  let choices: Button[] = [];
  const streams = new Map<string, GrowingMessage>();
  const texts = new Map<string, string>();
  let endInput!: () => void;
  const inputEnded = new Promise<void>((resolve) => {
    endInput = resolve;
  });

  const showButtons = (buttons: Button[][] | undefined) => {
    const flat = (buttons ?? []).flat();
    if (flat.length === 0) return;
    choices = flat;
    write(`  ${flat.map((b, i) => `[${i + 1}] ${b.label}`).join('   ')}   (type the number)\n`);
  };

  const user = { id: 'operator', name: userName };

  const handleLine = async (sink: EventSink, raw: string) => {
    const line = raw.trim();
    if (!line) return;
    const id = String(++seq);
    const pick = /^\d+$/.test(line) ? choices[Number(line) - 1] : undefined;
    if (pick) {
      choices = [];
      await sink({
        type: 'button',
        chat: CONSOLE_CHAT,
        user,
        payload: pick.payload,
        respond: async ({ text }) => write(`  ${text}\n`),
      });
      return;
    }
    const command = /^\/(\w+)\s*([\s\S]*)$/.exec(line);
    if (command) {
      await sink({
        type: 'command',
        chat: CONSOLE_CHAT,
        user,
        name: (command[1] ?? '').toLowerCase(),
        args: command[2] ?? '',
        messageId: `in${id}`,
      });
      return;
    }
    await sink({ type: 'message', chat: CONSOLE_CHAT, user, text: line, messageId: `in${id}` });
  };

  const adapter: ConsoleAdapter = {
    platform: 'console',
    inputEnded,
    capabilities: () => CAPABILITIES,
    async start(sink) {
      write(`switchboard console — you are ${userName}. Type a message, or /help.\n`);
      rl = createInterface({ input, terminal: false });
      // One line at a time, in order, as a chat platform delivers messages.
      let chain = Promise.resolve();
      rl.on('line', (line) => {
        chain = chain
          .then(() => handleLine(sink, line))
          .catch((err: unknown) => write(`  error: ${String(err)}\n`));
      });
      rl.on('close', () => endInput());
    },
    async stop() {
      rl?.close();
    },
    async send(_chat, message: OutboundMessage): Promise<SentMessage> {
      const messageId = `out${++seq}`;
      texts.set(messageId, message.text);
      write(`${message.text}\n`);
      showButtons(message.buttons);
      return { messageId };
    },
    async edit(_chat, messageId, message) {
      if (texts.get(messageId) === message.text) return;
      texts.set(messageId, message.text);
      write(`  ↳ ${message.text}\n`);
      showButtons(message.buttons);
    },
    async delete() {},
    async typing() {},
    async startStream(chat): Promise<StreamHandle> {
      const handle = { chat, id: `stream${++seq}` };
      streams.set(handle.id, new GrowingMessage(write));
      return handle;
    },
    async updateStream(handle, message) {
      streams.get(handle.id)?.update(message.text);
    },
    async finishStream(handle, message) {
      streams.get(handle.id)?.end(message.text);
      streams.delete(handle.id);
      const messageId = `out${++seq}`;
      texts.set(messageId, message.text);
      showButtons(message.buttons);
      return { messageId };
    },
    describeChat: () => 'this terminal',
  };
  return adapter;
}

function safeUserName(): string {
  try {
    return userInfo().username || 'operator';
  } catch {
    return 'operator';
  }
}
