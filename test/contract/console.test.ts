/**
 * The adapter contract for the terminal chat, for the parts that apply to
 * it. No platform stands behind it: nothing answers 429, refuses markup,
 * caps a payload or waits for an acknowledgement, and what it printed stays
 * printed, so edits and deletes are shown as new lines (its own tests cover
 * how). What remains is checked on its transcript: sends, the one chat
 * key, button choices typed by number and their answers, typing.
 */
import { PassThrough } from 'node:stream';
import { CONSOLE_CHAT, createConsoleAdapter } from '../../adapters/console/index.js';
import { plain } from '../../src/bot/format/dialect.js';
import { watchScreen } from '../helpers/console-screen.js';
import { type PlatformHarness, type PlatformRig, waitFor } from './harness.js';
import { contractSuite } from './suite.js';

/** Where the console declares its numbers; no platform documents any. */
const OWN = 'adapters/console/index.ts';
const NO_PLATFORM = 'no platform behind the terminal';

/** The one place the adapter is built, so a change of its option names is made here once. */
function createAdapter(input: PassThrough, output: PassThrough) {
  return createConsoleAdapter({ input, output, userName: 'Ann' });
}

/** Lines the chat printed after its greeting. */
function transcript(text: string): string[] {
  return text.split('\n').slice(1, -1);
}

/** Lines of the bot's own messages: the indented ones are choices, answers and edit notes. */
const isMessageLine = (line: string) => line !== '' && !line.startsWith('  ');

const terminal: PlatformHarness = {
  name: 'console',
  places: ['terminal'],
  limits: {
    messageLength: { value: 100_000, format: plain, docs: OWN },
    buttonPayloadBytes: { value: 200, docs: OWN },
    upload: { documented: { value: 1024 * 1024 * 1024, docs: OWN }, enforced: 0 },
    ackDeadlineMs: { value: 0, docs: OWN },
  },
  cannot: {
    edit: 'a printed line stays printed: an edit prints the new text under the old',
    delete: 'a printed line stays printed: delete only ends a live reply',
    'too-long': `${NO_PLATFORM}: any length prints; the declared length only keeps replies readable`,
    'rate-limit-chat': `${NO_PLATFORM}: nothing answers 429`,
    'rate-limit-global': `${NO_PLATFORM}: nothing answers 429`,
    'format-refused': 'plain text is printed as it is; nothing parses it, so nothing refuses it',
    'buttons-over-limit': `${NO_PLATFORM}: a payload never leaves the process, so none is too long`,
    'buttons-on-edit': 'a printed choice stays printed: the terminal offers the newest message’s buttons',
    files: 'a file is shown by its path on this machine, never uploaded (filesAsPaths)',
    'ack-deadline': `${NO_PLATFORM}: nobody waits for a typed choice to be acknowledged`,
    'edit-inbound': 'a line sent from the terminal cannot be edited afterwards',
    'command-ack': `${NO_PLATFORM}: a typed command is a line like any other; nobody waits for an acknowledgement`,
    capabilities: `${NO_PLATFORM}: no enforced limits to stay within`,
  },
  async start({ log }) {
    const input = new PassThrough();
    const screen = watchScreen();
    const adapter = createAdapter(input, screen.output);
    await adapter.start(log.sink);
    const botTexts = () => transcript(screen.text()).filter(isMessageLine);
    const changed = new Set<() => void>();
    screen.output.on('data', () => {
      for (const check of [...changed]) check();
    });
    const rig: PlatformRig = {
      adapter,
      chat: CONSOLE_CHAT,
      botTexts,
      async say(_place, text) {
        input.write(`${text}\n`);
        return { botTexts };
      },
      editLastSaid: () => Promise.reject(new Error('a line sent from the terminal cannot be edited')),
      buttonLabels: () => [],
      async command(name, args) {
        input.write(`/${name} ${args}\n`);
        return {
          acknowledged: () => Promise.reject(new Error('a typed command is acknowledged by nobody')),
          shown: () => [],
        };
      },
      async press(_messageId, _payload) {
        const offered = transcript(screen.text()).filter((l) => l.endsWith('(type the number)'));
        const choices = offered.at(-1)?.match(/\[\d+\]/g) ?? [];
        // The suite offers one button at a time; its payload is checked on the event.
        if (choices.length !== 1)
          throw new Error(`expected one offered choice, the terminal shows ${offered.at(-1)}`);
        const from = transcript(screen.text()).length;
        input.write('1\n');
        const shown = () =>
          transcript(screen.text())
            .slice(from)
            .filter((l) => l.startsWith('  ') && !l.endsWith('(type the number)'))
            .map((l) => l.trim());
        return {
          acknowledged: () => rig.until(() => shown().length > 0, 'an answer to the choice'),
          shown,
        };
      },
      rateLimitNext: () => undefined,
      files: () => [],
      // A terminal has no typing indicator; the typing part checks that nothing is printed for it.
      typings: () => 0,
      until: (check, what) =>
        waitFor(changed, () => (check() ? true : undefined), `the terminal to show ${what}`).then(
          () => undefined,
        ),
      async close() {
        await adapter.stop();
        input.end();
      },
    };
    return rig;
  },
};

contractSuite(terminal);
