/**
 * Bash: runs a shell command in the workspace with a scrubbed environment, a
 * timeout and a cap on captured output. The command runs in its own process
 * group so a timeout or a stop ends everything it started, not just bash.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool, stringField, toolError } from './define.js';
import { CappedOutput } from './output.js';
import { workspaceRoot } from './paths.js';
import type { Tool, ToolContext, ToolResult } from './types.js';

/** Default time a command may run. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** The most a command may ask for with `timeout`. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/**
 * How long to keep reading after bash exits. What it wrote is already in the
 * pipe; a process that left the group (`setsid`) may keep the pipe open for
 * ever, and must not hold the turn with it.
 */
export const BASH_EXIT_GRACE_MS = 250;
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

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
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
      const cwd = await workspaceRoot(context.cwd);
      // The turn may have been stopped while the workspace was resolved; an
      // abort listener added now would never fire.
      if (context.signal.aborted) return toolError('The command was not run: the turn was stopped.');
      const timeoutMs = Math.min(input.timeout ?? options.timeoutMs, BASH_MAX_TIMEOUT_MS);
      return runCommand(input.command, { cwd, timeoutMs, maxOutputChars: options.maxOutputChars, context });
    },
  });
}

interface RunOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  context: ToolContext;
}

function runCommand(
  command: string,
  { cwd, timeoutMs, maxOutputChars, context }: RunOptions,
): Promise<ToolResult> {
  return new Promise((resolve) => {
    const output = new CappedOutput(maxOutputChars);
    let ended: 'timeout' | 'aborted' | undefined;
    let detachedHolder = false;
    const child = spawn('bash', ['-c', command], {
      cwd,
      env: context.env,
      detached: true, // own process group, so killGroup reaches grandchildren
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => output.append(chunk));
    child.stderr.on('data', (chunk: string) => output.append(chunk));

    const stop = (why: 'timeout' | 'aborted') => {
      ended ??= why;
      killGroup(child.pid);
    };
    const timer = context.clock.setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('aborted');
    context.signal.addEventListener('abort', onAbort, { once: true });
    let grace: ReturnType<typeof context.clock.setTimeout> | undefined;
    const cleanup = () => {
      context.clock.clearTimeout(timer);
      if (grace !== undefined) context.clock.clearTimeout(grace);
      context.signal.removeEventListener('abort', onAbort);
    };

    child.on('exit', () => {
      // Background jobs bash left would hold the pipes open and keep the turn
      // waiting; end them with it.
      killGroup(child.pid);
      grace = context.clock.setTimeout(() => {
        detachedHolder = true;
        child.stdout.destroy();
        child.stderr.destroy();
      }, BASH_EXIT_GRACE_MS);
    });
    child.on('error', (err) => {
      cleanup();
      resolve(toolError(`Could not run bash: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      cleanup();
      const text = output.text();
      let body = text.length > 0 ? text.replace(/\n$/, '') : '(no output)';
      if (detachedHolder) {
        body += '\n[a process started outside the command group still holds its output; it was left running]';
      }
      if (ended === 'timeout') {
        resolve(
          toolError(
            `${body}\n[timed out after ${timeoutMs} ms; the command and its child processes were killed]`,
          ),
        );
      } else if (ended === 'aborted') {
        resolve(toolError(`${body}\n[stopped: the command was aborted and its processes were killed]`));
      } else if (code === null) {
        resolve(toolError(`${body}\n[killed by signal ${signal ?? 'unknown'}]`));
      } else {
        resolve({ content: `${body}\n[exit code: ${code}]`, ...(code === 0 ? {} : { isError: true }) });
      }
    });
  });
}
