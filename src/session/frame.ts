/**
 * The conversation's frame: `system` and `tools` built once per conversation
 * and sent byte for byte on every request (Prefix checks on thinking blocks
 * page of platform.claude.com/docs: "Build system and tools once for each
 * conversation, and send that copy every time"). What changes later — the
 * instructions read from the project's files, the permission mode, MCP
 * tools that appear or vanish — is said in a new `context` message at the
 * end, sent as a mid-conversation system message (Mid-conversation system
 * messages and tool changes page), never by rewriting what was sent.
 */
import type { Clock } from '../clock.js';
import type { ModelInfo } from '../provider/models.js';
import type { StoredFrame } from '../store/types.js';
import { createMessage } from './history.js';
import type { ApiBlock, ContentBlock, ConversationFrame, HistoryMessage, ToolDefinition } from './types.js';

/** The frame as the store keeps it: tools as JSON text, so no store can reorder their keys. */
export function storeFrame(frame: ConversationFrame): StoredFrame {
  return {
    system: frame.system,
    tools: JSON.stringify(frame.tools),
    mode: frame.mode,
    ...(frame.web ? { web: frame.web } : {}),
  };
}

/** A stored frame read back; undefined when absent or unreadable (the next turn builds a new one). */
export function loadFrame(stored: StoredFrame | undefined): ConversationFrame | undefined {
  if (!stored) return undefined;
  try {
    const tools: unknown = JSON.parse(stored.tools);
    if (!Array.isArray(tools)) return undefined;
    return {
      system: stored.system,
      tools: tools as ToolDefinition[],
      mode: stored.mode as ConversationFrame['mode'],
      ...(stored.web === 'off' || stored.web === 'on' ? { web: stored.web } : {}),
    };
  } catch {
    return undefined;
  }
}

/** What the model knows now: the frame, as the newest `context` message left it. */
export function effectiveFrame(
  frame: ConversationFrame,
  history: readonly HistoryMessage[],
): ConversationFrame {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i] as HistoryMessage;
    if (message.kind === 'context' && message.frame) return message.frame;
  }
  return frame;
}

const sameTool = (a: ToolDefinition, b: ToolDefinition) => JSON.stringify(a) === JSON.stringify(b);

/** A tool as a `tool_addition` defines it inline (the API's tool shape). */
function toolAddition(tool: ToolDefinition): ApiBlock {
  return {
    type: 'tool_addition',
    tool: {
      type: 'tool_definition',
      definition: {
        name: tool.name,
        description: tool.description,
        input_schema: { type: 'object', ...tool.inputSchema },
      },
    },
  };
}

function toolRemoval(name: string): ApiBlock {
  return { type: 'tool_removal', tool: { type: 'tool_reference', name } };
}

/**
 * The `context` message that takes the model from `known` to `now`, or
 * undefined when nothing changed. On a model without mid-conversation tool
 * changes a new tool cannot be offered: the message says so and the tool
 * stays out; a tool that vanished is announced and refused when called.
 */
export function frameChange(
  known: ConversationFrame,
  now: ConversationFrame,
  model: Pick<ModelInfo, 'systemMessages'>,
  clock: Clock,
): HistoryMessage | undefined {
  const texts: string[] = [];
  const blocks: ContentBlock[] = [];
  if (now.system !== known.system) {
    texts.push(
      `The instructions for this conversation changed (project files or settings were updated). They now read as follows, and where they differ from the system prompt, these apply:\n\n${now.system}`,
    );
  }
  if (now.mode !== known.mode) texts.push(`The permission mode is now ${now.mode}.`);
  const webText = webChange(known, now);
  if (webText) texts.push(webText);
  // The API's own tools (web search, fetch) stay as the conversation declared them: turning the web
  // off is said in words, and a tool change cannot define a server tool inline.
  const serverTools = known.tools.filter((t) => t.server);
  const knownClient = known.tools.filter((t) => !t.server);
  const nowClient = now.tools.filter((t) => !t.server);
  const removed = knownClient.filter((t) => !nowClient.some((n) => n.name === t.name));
  const changed = nowClient.filter((t) => knownClient.some((k) => k.name === t.name && !sameTool(k, t)));
  const added = nowClient.filter((t) => !knownClient.some((k) => k.name === t.name));
  let tools = known.tools.filter((t) => !removed.includes(t));
  if (model.systemMessages) {
    for (const t of [...removed, ...changed]) blocks.push({ type: 'api', block: toolRemoval(t.name) });
    for (const t of [...changed, ...added]) blocks.push({ type: 'api', block: toolAddition(t) });
    tools = [...nowClient, ...serverTools];
  } else {
    if (removed.length > 0)
      texts.push(`These tools are no longer available: ${removed.map((t) => t.name).join(', ')}.`);
    if (added.length > 0)
      texts.push(
        `These tools became available but cannot be added to this conversation on this model: ${added.map((t) => t.name).join(', ')}. Start a new conversation to use them.`,
      );
  }
  if (texts.length === 0 && blocks.length === 0) return undefined;
  const content: ContentBlock[] = [
    ...(texts.length > 0 ? [{ type: 'text' as const, text: texts.join('\n\n') }] : []),
    ...blocks,
  ];
  const message = createMessage('user', content, clock, { kind: 'context' });
  message.frame = { system: now.system, tools, mode: now.mode, ...(now.web ? { web: now.web } : {}) };
  return message;
}

/** What to tell the model when the chat turned its web tools off or on again. */
function webChange(known: ConversationFrame, now: ConversationFrame): string | undefined {
  if (!known.tools.some((t) => t.server)) return undefined;
  const was = known.web ?? 'on';
  const is = now.web ?? 'on';
  if (was === is) return undefined;
  return is === 'off'
    ? 'Web search and web fetch are now turned off in this chat: do not use them; answer from what you know and say when that may be out of date.'
    : 'Web search and web fetch are turned on again in this chat: you may use them.';
}
