/**
 * The built-in tools (Read, Write, Edit, Glob, Grep, Bash, SendFile, Schedule), the permission
 * policy, workspace confinement and the scrubbed child environment.
 */

import { BASH_DEFAULT_MAX_OUTPUT_CHARS, BASH_DEFAULT_TIMEOUT_MS, createBashTool } from './bash.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createReadTool } from './read.js';
import { createScheduleTool } from './schedule.js';
import { createSendFileTool } from './send-file.js';
import type { Tool } from './types.js';
import { createWriteTool } from './write.js';

/** Options for {@link createBuiltinTools}. */
export interface BuiltinToolsOptions {
  /** Default Bash timeout in ms (120 s); a call may ask for up to 600 s. */
  bashTimeoutMs?: number;
  /**
   * Cap on the characters Bash and Grep return per call (30,000). Read has
   * its own larger cap, since it already pages by lines.
   */
  maxOutputChars?: number;
}

/**
 * Creates the seven built-in tools. They open files and run commands in the
 * turn's sandbox (`ToolContext.sandbox`), confined to the session's
 * workspace (`ToolContext.cwd`); paths are resolved inside it, one
 * component at a time, so a symlink swapped in meanwhile leads nowhere.
 *
 * @example
 * const tools = createBuiltinTools({ bashTimeoutMs: 60_000 });
 * const session = new InteractiveSession({ cwd, provider, tools, sandbox: new Sandbox({ mode: 'required' }) });
 */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): Tool[] {
  const maxOutputChars = options.maxOutputChars ?? BASH_DEFAULT_MAX_OUTPUT_CHARS;
  return [
    createReadTool(),
    createWriteTool(),
    createEditTool(),
    createGlobTool(),
    createGrepTool({ maxOutputChars }),
    createBashTool({ timeoutMs: options.bashTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS, maxOutputChars }),
    // Sends through the chat the turn answers (ToolContext.sendFile); says so when there is none.
    createSendFileTool(),
    // Schedules in the chat the turn answers (ToolContext.schedules); says so when there is none.
    createScheduleTool(),
  ];
}

export {
  BASH_DEFAULT_MAX_OUTPUT_CHARS,
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_MAX_TIMEOUT_MS,
  type BashToolOptions,
  createBashTool,
} from './bash.js';
export { createEditTool } from './edit.js';
export { scrubbedEnv } from './env.js';
export { createGlobTool, GLOB_MAX_RESULTS } from './glob.js';
export { createGrepTool, GREP_MAX_RESULTS, GREP_TIME_LIMIT_MS, type GrepToolOptions } from './grep.js';
export { decidePermission, type PermissionDecision } from './permissions.js';
export { createReadTool, READ_DEFAULT_LIMIT, READ_MAX_OUTPUT_CHARS } from './read.js';
export { createSendFileTool, SEND_FILE_MAX_BYTES } from './send-file.js';
export type { Tool, ToolContext, ToolResult } from './types.js';
export { createWriteTool } from './write.js';
