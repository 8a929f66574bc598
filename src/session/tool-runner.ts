/**
 * Runs the tool calls of one model reply: permission first (mode policy,
 * scoped session grants, then asking), `tool_start` / `tool_end` events,
 * and a result for every call — interrupted ones included — so the history
 * stays valid for the API.
 */
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SandboxTurn } from '../sandbox/turn.js';
import { decidePermission } from '../tools/permissions.js';
import type { ElicitationAnswer, ElicitationQuestion, Tool } from '../tools/types.js';
import type { ChatSchedules, FileSender, ToolDefinition, ToolResultImage } from '../vocabulary.js';
import type { TypedEmitter } from './emitter.js';
import type { SessionGrants } from './grants.js';
import { INTERRUPTED_TOOL_RESULT } from './history.js';
import { imageProblem } from './images.js';
import type { PermissionGate, PermissionOutcome } from './permissions.js';
import type { StreamCallResult } from './stream-call.js';
import type { ContentBlock, PermissionRequest, SessionEvents, ToolEndEvent } from './types.js';

/** What the tool loop works with: the tools, where they run, and who may allow them. */
export interface ToolHost {
  tools: readonly Tool[];
  /**
   * Every tool name the model was offered in this conversation (its frozen
   * tools and the changes announced since). A call to one of them that is
   * not in `tools` is a tool that went away (an MCP server dropped): it is
   * refused with that reason.
   */
  offered?: readonly string[];
  emitter: TypedEmitter<SessionEvents>;
  gate: PermissionGate;
  grants: SessionGrants;
  clock: Clock;
  logger: Logger;
  cwd: string;
  env: Record<string, string>;
  /** The turn's sandbox, where the built-in tools run. */
  sandbox?: SandboxTurn;
  /** The chat's file delivery for this turn, when the turn has a chat (SendFile). */
  sendFile?: FileSender;
  /** The chat's schedules for this turn, when the turn has a chat (Schedule). */
  schedules?: ChatSchedules;
  permissionTimeoutMs: number;
  /**
   * Told just before a call waits for a person, with the results the reply's
   * earlier calls already have; the session records the paused turn then.
   * Returns what to call once the wait is over.
   */
  pause?: (waiting: WaitingCall) => () => void;
}

/** A call waiting for a person's answer, and the results before it. */
export interface WaitingCall {
  toolUseId: string;
  results: ToolResultBlock[];
  request: Omit<PermissionRequest, 'id'>;
}

/** An answer already given to one call (a paused turn resumed): that call is not asked again. */
export interface DecidedCall {
  id: string;
  outcome: PermissionOutcome;
}

/** A tool_result block. */
export type ToolResultBlock = Extract<ContentBlock, { type: 'tool_result' }>;

function safe(fn: () => string, fallback: string): string {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function denialText(outcome: PermissionOutcome, host: ToolHost, tool: Tool): string {
  switch (outcome) {
    case 'unanswered':
      return `Permission denied: nobody was available to approve ${tool.name}. Do not retry it; explain what you wanted to do.`;
    case 'timeout':
      return `Permission denied: the approval request for ${tool.name} got no answer within ${Math.round(host.permissionTimeoutMs / 1000)} s.`;
    default:
      return `Permission denied: the user refused this ${tool.name} call. Ask how to proceed instead of retrying it.`;
  }
}

/**
 * A result's images that the API would take (Vision page limits, as for a
 * user's images); the others are named in the text instead, so one bad
 * picture from a tool cannot make every later request fail.
 */
function checkedImages(
  content: string,
  images: readonly ToolResultImage[] | undefined,
): { content: string; images?: ToolResultImage[] } {
  if (!images || images.length === 0) return { content };
  const kept: ToolResultImage[] = [];
  const notes: string[] = [];
  for (const [i, image] of images.entries()) {
    const problem = imageProblem(image.mediaType, image.data);
    if (problem) notes.push(`[image ${i + 1} left out: ${problem}]`);
    else kept.push({ mediaType: image.mediaType, data: image.data });
  }
  const text = [content, ...notes].filter((part) => part.length > 0).join('\n');
  return { content: text, ...(kept.length > 0 ? { images: kept } : {}) };
}

/** The tools as the model sees them. */
export function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

/**
 * Settles with the tool's result, or rejects as soon as `signal` aborts: a
 * tool that misses the abort must not hold the turn (it finishes unobserved).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Asks the gate, with the turn recorded as paused while it waits. */
async function ask(
  host: ToolHost,
  toolUseId: string,
  results: readonly ToolResultBlock[],
  signal: AbortSignal,
  request: Omit<PermissionRequest, 'id'>,
): Promise<PermissionOutcome> {
  const resume = host.pause?.({ toolUseId, results: [...results], request });
  try {
    return await host.gate.request(request, signal);
  } finally {
    resume?.();
  }
}

/**
 * Runs `calls` in order and returns one tool_result block per call, after
 * `earlier` (results a paused turn already had). A `decided` call takes that
 * answer instead of asking.
 */
export async function runToolCalls(
  host: ToolHost,
  calls: StreamCallResult['toolUses'],
  signal: AbortSignal,
  decided?: DecidedCall,
  earlier: readonly ToolResultBlock[] = [],
): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [...earlier];
  for (const call of calls) {
    if (signal.aborted) {
      results.push({
        type: 'tool_result',
        toolUseId: call.id,
        content: INTERRUPTED_TOOL_RESULT,
        isError: true,
      });
      continue;
    }
    const tool = host.tools.find((t) => t.name === call.name);
    const summary = tool ? safe(() => tool.summarize(call.input), tool.name) : call.name;
    host.emitter.emit('tool_start', { id: call.id, name: call.name, summary });
    const end = (
      status: ToolEndEvent['status'],
      content: string,
      isError: boolean,
      images?: readonly ToolResultImage[],
    ) => {
      host.emitter.emit('tool_end', { id: call.id, name: call.name, summary, status });
      results.push({
        type: 'tool_result',
        toolUseId: call.id,
        ...checkedImages(content, images),
        ...(isError ? { isError: true } : {}),
      });
    };
    if (!tool) {
      const gone = host.offered?.includes(call.name) ?? false;
      end(
        'error',
        gone
          ? `The tool "${call.name}" is not available right now: its server disconnected or stopped offering it. Do not call it again until you are told it is back; carry on without it or tell the user.`
          : `Unknown tool "${call.name}". Available tools: ${host.tools.map((t) => t.name).join(', ')}.`,
        true,
      );
      continue;
    }
    const mode = host.grants.mode;
    const decision = decidePermission(mode, tool.toolClass);
    if (decision === 'deny') {
      end(
        'denied',
        `Permission denied: ${tool.name} (${tool.toolClass}) is not allowed in ${mode} mode.`,
        true,
      );
      continue;
    }
    if (decision === 'ask') {
      const scope = `${tool.name}:${safe(() => tool.scopeKey(call.input), '')}`;
      if (decided?.id === call.id || !host.grants.allows(scope)) {
        const outcome =
          decided?.id === call.id
            ? decided.outcome
            : await ask(host, call.id, results, signal, {
                toolName: tool.name,
                toolArgs: call.input,
                summary,
                toolClass: tool.toolClass,
                scope,
              });
        if (outcome === 'aborted' || signal.aborted) {
          end('interrupted', INTERRUPTED_TOOL_RESULT, true);
          continue;
        }
        if (outcome === 'allow-session') host.grants.allow(scope);
        else if (outcome !== 'allow') {
          end('denied', denialText(outcome, host, tool), true);
          continue;
        }
      }
    }
    try {
      const result = await untilAborted(
        tool.run(call.input, {
          cwd: host.cwd,
          signal,
          env: host.env,
          clock: host.clock,
          ...(host.sandbox ? { sandbox: host.sandbox } : {}),
          ...(host.sendFile ? { sendFile: host.sendFile } : {}),
          reportProgress: (text) =>
            host.emitter.emit('tool_progress', { id: call.id, name: call.name, text }),
          ...(host.schedules ? { schedules: host.schedules } : {}),
          elicit: (question) => askPerson(host.emitter, call, question, signal),
        }),
        signal,
      );
      if (signal.aborted) end('interrupted', INTERRUPTED_TOOL_RESULT, true);
      else end(result.isError ? 'error' : 'ok', result.content, result.isError === true, result.images);
    } catch (err) {
      if (signal.aborted) end('interrupted', INTERRUPTED_TOOL_RESULT, true);
      else {
        host.logger.debug({ err, tool: tool.name }, 'tool failed');
        end('error', `Error: ${describeError(err)}`, true);
      }
    }
  }
  return results;
}

/**
 * Puts a tool's question to whoever listens for `elicitation_request`:
 * declined when nobody does, cancelled when the turn stops first.
 */
function askPerson(
  emitter: TypedEmitter<SessionEvents>,
  call: { id: string; name: string },
  question: ElicitationQuestion,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  if (emitter.listenerCount('elicitation_request') === 0) return Promise.resolve({ action: 'decline' });
  if (signal.aborted) return Promise.resolve({ action: 'cancel' });
  return new Promise((resolve) => {
    let settled = false;
    const answer = (a: ElicitationAnswer) => {
      if (settled) return false;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(a);
      return true;
    };
    const onAbort = () => answer({ action: 'cancel' });
    signal.addEventListener('abort', onAbort, { once: true });
    emitter.emit('elicitation_request', { id: call.id, toolName: call.name, question, answer });
  });
}
