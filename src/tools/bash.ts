/**
 * Bash: runs a shell command in the turn's sandbox (see src/sandbox), in the
 * workspace, with an allowlisted environment, the sandbox's limits, a
 * timeout and a cap on captured output. The command runs in its own process
 * group so a timeout or a stop ends everything it started; whatever escapes
 * the group (`setsid`) ends with the turn's sandbox.
 */
import { z } from 'zod';
import { describeError, SwitchboardError } from '../errors.js';
import type { ExecOutcome } from '../sandbox/turn.js';
import { defineTool, stringField, toolError } from './define.js';
import { inSandbox } from './in-sandbox.js';
import { CappedOutput } from './output.js';
import type { Tool, ToolResult } from './types.js';

/** Default time a command may run. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** The most a command may ask for with `timeout`. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Default cap on captured stdout + stderr. */
export const BASH_DEFAULT_MAX_OUTPUT_CHARS = 30_000;

const schema = z
  .object({
    command: z.string().min(1).describe('The command, run as `bash -c <command>` in the workspace.'),
    timeout: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`Timeout in milliseconds (at most ${BASH_MAX_TIMEOUT_MS}).`),
    description: z
      .string()
      .optional()
      .describe('A few words on what the command does, for the people watching.'),
  })
  .strict();

/** Options for {@link createBashTool}. */
export interface BashToolOptions {
  timeoutMs: number;
  maxOutputChars: number;
}

/** Builds the Bash tool. */
export function createBashTool(options: BashToolOptions): Tool {
  return defineTool({
    name: 'Bash',
    description:
      'Runs a command with `bash -c` in the workspace folder and returns stdout and stderr together, ' +
      `then the exit code. Times out after ${options.timeoutMs} ms unless timeout (ms, at most ` +
      `${BASH_MAX_TIMEOUT_MS}) says otherwise; output beyond ${options.maxOutputChars} characters is cut ` +
      'from the middle. Stdin is empty, and processes left running when the command ends are stopped.',
    toolClass: 'execute',
    schema,
    subject: (input) => stringField(input, 'command') ?? '?',
    // An approval covers this exact command, never Bash as a whole.
    scopeKey: (input) => stringField(input, 'command') ?? '',
    async run(input, context) {
      if (context.signal.aborted) return toolError('The command was not run: the turn was stopped.');
      const timeoutMs = Math.min(input.timeout ?? options.timeoutMs, BASH_MAX_TIMEOUT_MS);
      const output = new CappedOutput(options.maxOutputChars);
      let outcome: ExecOutcome;
      try {
        outcome = await inSandbox(context, (turn) =>
          turn.exec(input.command, {
            timeoutMs,
            signal: context.signal,
            onChunk: (chunk) => output.append(chunk),
          }),
        );
      } catch (err) {
        if (err instanceof SwitchboardError && err.code === 'PERMISSION_DENIED')
          return toolError(err.message);
        // Something inside ended the sandbox itself (`kill -9 $PPID`): say so; the next call starts a new one.
        return toolError(`${body(output)}\n[${describeError(err)}]`);
      }
      return describeOutcome(body(output), outcome, timeoutMs);
    },
  });
}

function body(output: CappedOutput): string {
  const text = output.text();
  return text.length > 0 ? text.replace(/\n$/, '') : '(no output)';
}

function describeOutcome(text: string, outcome: ExecOutcome, timeoutMs: number): ToolResult {
  let shown = text;
  if (outcome.detachedHolder) {
    shown +=
      '\n[a process started outside the command group still holds its output; it is stopped when the turn ends]';
  }
  if (outcome.ended === 'timeout') {
    return toolError(
      `${shown}\n[timed out after ${timeoutMs} ms; the command and its child processes were killed]`,
    );
  }
  if (outcome.ended === 'aborted') {
    return toolError(`${shown}\n[stopped: the command was aborted and its processes were killed]`);
  }
  if (outcome.code === null) return toolError(`${shown}\n[killed by signal ${outcome.signal ?? 'unknown'}]`);
  return {
    content: `${shown}\n[exit code: ${outcome.code}]`,
    ...(outcome.code === 0 ? {} : { isError: true }),
  };
}
