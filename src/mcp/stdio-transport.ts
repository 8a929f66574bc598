/**
 * The stdio transport for an MCP server, started in a process group of its
 * own. The SDK's StdioClientTransport spawns the server in the bot's group
 * and signals only that one process on close, so whatever the server
 * started itself (`npx` starts node, which may start more) would outlive
 * it. Here the whole group is ended: stdin closed first (the MCP spec's
 * stdio shutdown), then SIGTERM to the group, then SIGKILL. Framing is the
 * SDK's own (ReadBuffer, serializeMessage).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Clock, sleep } from '../clock.js';

/** How long a server gets to exit after stdin closes, and again after SIGTERM. */
const EXIT_GRACE_MS = 2_000;
/** The end of the server's stderr kept for the reason it failed. */
const STDERR_TAIL_CHARS = 2_000;

/** Options for {@link GroupStdioTransport}. */
export interface GroupStdioOptions {
  command: string;
  args: readonly string[];
  /** The whole environment of the child: nothing else is inherited. */
  env: Record<string, string>;
  cwd: string;
  clock: Clock;
  /** Each line the server writes to stderr. */
  onStderr?: (line: string) => void;
}

/** An MCP stdio transport whose server runs, and is ended, as a process group. */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: GroupStdioOptions;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  #stderrTail = '';
  #exited: Promise<void> = Promise.resolve();

  constructor(options: GroupStdioOptions) {
    this.#options = options;
  }

  /** The server's process id (and its group's), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the server wrote to stderr: usually why it failed. */
  get stderrTail(): string {
    return this.#stderrTail.trim();
  }

  /** Spawns the server; rejects when it cannot be started (no such command). */
  start(): Promise<void> {
    const { command, args, env, cwd } = this.#options;
    return new Promise<void>((resolve, reject) => {
      // detached: a new session and process group, so the group can be signalled as a whole.
      const child = spawn(command, [...args], { env, cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      this.#child = child;
      this.#exited = new Promise<void>((done) => child.once('close', () => done()));
      child.once('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        // The server is gone; end whatever it left running in its group.
        this.#signalGroup('SIGKILL');
        this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (err) => this.onerror?.(err));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.#buffer.append(chunk);
          for (let message = this.#buffer.readMessage(); message; message = this.#buffer.readMessage())
            this.onmessage?.(message);
        } catch (err) {
          this.onerror?.(err as Error);
        }
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
        for (const line of text.split('\n')) if (line.trim()) this.#options.onStderr?.(line);
      });
    });
  }

  /** Writes one message, waiting for the pipe to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('The MCP server is not running.'));
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server and everything in its group; resolves once it has exited. */
  async close(): Promise<void> {
    const child = this.#child;
    this.#buffer.clear();
    // Never spawned (no such command): there is nothing to wait for.
    if (!child || child.pid === undefined) {
      this.#child = undefined;
      return;
    }
    const exited = this.#exited;
    const gone = () => this.#child === undefined;
    child.stdin?.end();
    await Promise.race([exited, sleep(this.#options.clock, EXIT_GRACE_MS)]);
    if (!gone()) {
      this.#signalGroup('SIGTERM');
      await Promise.race([exited, sleep(this.#options.clock, EXIT_GRACE_MS)]);
    }
    if (!gone()) this.#signalGroup('SIGKILL');
    await exited;
  }

  #signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }
}
