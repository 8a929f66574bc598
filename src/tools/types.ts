/**
 * The tool contract. A tool declares its class (inspect / modify / execute),
 * which the permission policy maps to allow / ask / deny per mode.
 */
import type { Clock } from '../clock.js';
import type { SandboxTurn } from '../sandbox/turn.js';
import type {
  ChatSchedules,
  FileSender,
  ToolClass,
  ToolDefinition,
  ToolPrompt,
  ToolResultImage,
  ToolServerStatus,
} from '../vocabulary.js';

/** What a tool gets to run with. */
export interface ToolContext {
  /** The workspace; file tools must stay inside it after resolving symlinks. */
  cwd: string;
  signal: AbortSignal;
  /** Environment for child processes a custom tool starts: an allowlist (see scrubbedEnv). */
  env: Record<string, string>;
  clock: Clock;
  /**
   * The turn's sandbox, where the built-in tools open files and run
   * commands. Without one, each call gets a sandbox of its own with the
   * default settings (auto), ended when the call returns.
   */
  sandbox?: SandboxTurn;
  /** Sends a file into the chat the turn answers (SendFile); absent outside a chat. */
  sendFile?: FileSender;
  /**
   * Shows how far a long call has come (`everything: 40% indexing`) in
   * the reply's status line; absent outside a chat.
   */
  reportProgress?: (text: string) => void;
  /** Makes schedules in the chat the turn answers (Schedule); absent outside a chat. */
  schedules?: ChatSchedules;
  /**
   * Puts a question from the tool (an MCP server's elicitation) to the
   * person who started the turn and waits for their answer; absent outside
   * a chat, where a question is declined.
   */
  elicit?: (question: ElicitationQuestion) => Promise<ElicitationAnswer>;
}

/** One field of an {@link ElicitationQuestion}: a flat, primitive value. */
export interface ElicitationField {
  /** The property name the answer is keyed by. */
  name: string;
  /** What the person is shown: the title, else the name. */
  label: string;
  description?: string;
  /** `choice` is one of `options` (a string enum); `choices` several of them (an array of enum). */
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';
  required: boolean;
  /** For strings: `email`, `uri`, `date` or `date-time`. */
  format?: string;
  options?: { value: string; label: string }[];
  /** Bounds: the value of a number, the length of a string, the count of `choices`. */
  min?: number;
  max?: number;
  /** The server's suggestion, taken when an optional field is skipped. */
  default?: ElicitationValue;
}

/** A value an elicitation answer may hold. */
export type ElicitationValue = string | number | boolean | string[];

/** A question a tool asks the person while it runs. */
export interface ElicitationQuestion {
  /** Who asks (the MCP server's name). */
  source: string;
  message: string;
  fields: ElicitationField[];
}

/** The person's answer: the filled-in fields, a refusal, or no answer (dismissed, timed out, stopped). */
export type ElicitationAnswer =
  | { action: 'accept'; content: Record<string, ElicitationValue> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** A tool's outcome; `isError` results are returned to the model, not thrown. */
export interface ToolResult {
  content: string;
  /** Images for the model, sent after `content` (the session drops any the API would refuse). */
  images?: ToolResultImage[];
  isError?: boolean;
}

/** A built-in or user-supplied tool. */
export interface Tool extends ToolDefinition {
  toolClass: ToolClass;
  /** One line for status messages and approval prompts (`Bash: npm test`). */
  summarize(input: Record<string, unknown>): string;
  /**
   * What "allow for this session" covers: an approval is remembered under
   * `${name}:${scopeKey(input)}`, so approving one Bash command does not
   * approve all of Bash.
   */
  scopeKey(input: Record<string, unknown>): string;
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/**
 * Tools that come and go (MCP servers). A session asks for them at the
 * start of each turn and keeps that list until the turn ends, so the tools
 * a request carries never change inside a turn.
 */
export interface ToolSource {
  /** The tools to offer now, in a stable order (same tools, same order, same bytes). */
  tools(): readonly Tool[];
  /** The servers behind them, for `/status` and `/tools`. */
  servers(): ToolServerStatus[];
  /** The prompts the servers offer (`/mcp prompts`); absent when there are none to offer. */
  prompts?(): Promise<ToolPrompt[]>;
  /**
   * The text of one server's prompt filled with `words` (`/mcp run`).
   *
   * @throws SwitchboardError with a message for the person when the prompt or an argument is wrong.
   */
  promptText?(server: string, prompt: string, words: readonly string[]): Promise<string>;
  /** The answer to `/mcp login <server>` run by an admin in `chat`: a sign-in link, or why not. */
  signIn?(server: string, chat: string): Promise<string>;
  /** The answer to `/mcp logout <server>`: the server's tokens deleted. */
  signOut?(server: string): Promise<string>;
}
