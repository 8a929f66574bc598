/**
 * Puts a streamed reply's content blocks back together, every one of them:
 * the Messages API asks for the whole `content` array of each response to
 * be sent back, in order, exactly as received (Extended thinking page;
 * Server tools page; Prefix checks on thinking blocks page). Text and
 * client tool calls become switchboard's blocks (text with its citations,
 * from `citations_delta`; tool_use with its `caller`); thinking is kept byte
 * for byte; every other type — server tool calls and their results, MCP
 * blocks, code execution results, `fallback`, `compaction`, and types this
 * version has never heard of — is kept in the API's own shape.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { SwitchboardError } from '../errors.js';
import type { ApiBlock } from '../vocabulary.js';
import type { ProviderEvent } from './types.js';

interface PendingToolUse {
  id: string;
  name: string;
  json: string;
  /** The input the start event carried (a tool called from code execution arrives whole). */
  input: Record<string, unknown>;
  caller?: ApiBlock;
}

/** A block kept in the API's shape; `json` gathers an `input` streamed as input_json_delta. */
interface PendingRaw {
  block: ApiBlock;
  json: string;
}

type StreamEvent = Anthropic.RawMessageStreamEvent;

/** One response's blocks, assembled from its stream events. */
export class BlockAssembler {
  readonly #tools = new Map<number, PendingToolUse>();
  readonly #thinking = new Map<number, { thinking: string; signature: string }>();
  readonly #raw = new Map<number, PendingRaw>();
  readonly #citations = new Map<number, ApiBlock[]>();
  /** Tool calls whose input could not be read (cut off at the output limit, most likely). */
  readonly unreadable: Array<{ id: string; name: string }> = [];

  /** The provider events one stream event gives, in order. */
  *accept(event: StreamEvent): Generator<ProviderEvent> {
    switch (event.type) {
      case 'content_block_start':
        yield* this.#start(event.index, event.content_block as unknown as ApiBlock);
        break;
      case 'content_block_delta':
        yield* this.#delta(event.index, event.delta as unknown as ApiBlock);
        break;
      case 'content_block_stop':
        yield* this.#stop(event.index);
        break;
    }
  }

  /**
   * The blocks a message_start already carries (a reply resumed inside a
   * code execution container arrives whole in it), each as if it had
   * streamed: start, then stop.
   */
  *prefilled(content: readonly ApiBlock[]): Generator<ProviderEvent> {
    for (const [index, block] of content.entries()) {
      yield* this.#start(index, block);
      yield* this.#stop(index);
    }
  }

  /** Tool calls still open when the message ended: cut off mid-input. */
  openToolCalls(): Array<{ id: string; name: string }> {
    const open = [...this.#tools.values()].map(({ id, name }) => ({ id, name }));
    this.#tools.clear();
    return [...this.unreadable, ...open];
  }

  *#start(index: number, block: ApiBlock): Generator<ProviderEvent> {
    switch (block.type) {
      case 'text': {
        const citations = Array.isArray(block.citations) ? (block.citations as ApiBlock[]) : [];
        this.#citations.set(index, [...citations]);
        if (typeof block.text === 'string' && block.text.length > 0)
          yield { type: 'text_delta', text: block.text, index };
        return;
      }
      case 'tool_use':
        this.#tools.set(index, {
          id: String(block.id),
          name: String(block.name),
          json: '',
          input: isObject(block.input) ? block.input : {},
          ...(block.caller ? { caller: block.caller as ApiBlock } : {}),
        });
        return;
      case 'thinking':
        this.#thinking.set(index, {
          thinking: String(block.thinking ?? ''),
          signature: String(block.signature ?? ''),
        });
        return;
      case 'redacted_thinking':
        yield { type: 'block', block: { type: 'redacted_thinking', data: String(block.data) } };
        return;
      default:
        // A copy: the SDK keeps accumulating its own object.
        this.#raw.set(index, { block: structuredClone(block), json: '' });
    }
  }

  *#delta(index: number, delta: ApiBlock): Generator<ProviderEvent> {
    switch (delta.type) {
      case 'text_delta':
        yield { type: 'text_delta', text: String(delta.text), index };
        return;
      case 'citations_delta':
        this.#citations.get(index)?.push(delta.citation as ApiBlock);
        yield { type: 'progress' };
        return;
      case 'thinking_delta': {
        const pending = this.#thinking.get(index);
        if (pending) pending.thinking += String(delta.thinking);
        yield delta.thinking
          ? { type: 'thinking_delta', text: String(delta.thinking) }
          : { type: 'progress' };
        return;
      }
      case 'signature_delta': {
        // The signature arrives whole, in one delta just before the block ends.
        const pending = this.#thinking.get(index);
        if (pending) pending.signature = String(delta.signature);
        yield { type: 'progress' };
        return;
      }
      case 'input_json_delta': {
        // A client tool call's input, or a server tool call's (server_tool_use, mcp_tool_use).
        const pending = this.#tools.get(index) ?? this.#raw.get(index);
        if (pending) pending.json += String(delta.partial_json);
        // A long tool input (a whole file for Write) can stream for a while without text.
        yield { type: 'progress' };
        return;
      }
      case 'compaction_delta': {
        const raw = this.#raw.get(index);
        // The delta carries the block's final value (a null content is a failed compaction).
        if (raw) {
          raw.block.content = delta.content;
          if ('encrypted_content' in delta) raw.block.encrypted_content = delta.encrypted_content;
        }
        yield { type: 'progress' };
        return;
      }
      default:
        yield { type: 'progress' };
    }
  }

  *#stop(index: number): Generator<ProviderEvent> {
    const citations = this.#citations.get(index);
    if (citations) {
      this.#citations.delete(index);
      if (citations.length > 0) yield { type: 'citations', index, citations };
    }
    const thinking = this.#thinking.get(index);
    if (thinking) {
      this.#thinking.delete(index);
      yield { type: 'block', block: { type: 'thinking', ...thinking } };
    }
    const raw = this.#raw.get(index);
    if (raw) {
      this.#raw.delete(index);
      if (raw.json.trim() !== '') {
        const input = parseObject(raw.json);
        if (input) raw.block.input = input;
      }
      yield { type: 'block', block: { type: 'api', block: raw.block } };
    }
    const tool = this.#tools.get(index);
    if (tool) {
      this.#tools.delete(index);
      const input = tool.json.trim() === '' ? tool.input : parseObject(tool.json);
      if (!input) this.unreadable.push({ id: tool.id, name: tool.name });
      else
        yield {
          type: 'tool_use',
          id: tool.id,
          name: tool.name,
          input,
          ...(tool.caller ? { caller: tool.caller } : {}),
        };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON text as an object; undefined when unreadable (cut off, most likely). */
function parseObject(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? value : {};
  } catch {
    return undefined;
  }
}

/** The error for a tool call whose arguments could not be read although the reply was not cut off. */
export function unreadableArguments(name: string): SwitchboardError {
  return new SwitchboardError(
    'PROVIDER_ERROR',
    `The model sent unreadable arguments for the tool ${name}. Try again.`,
    { detail: { tool: name } },
  );
}
