/**
 * The conversation frame as a session keeps it: the system prompt and tools
 * its first request froze, and whether the chat turned the web tools off.
 * Requests stay byte for byte what the first one sent (so the provider's
 * prompt cache keeps hitting, and history is only ever appended to); what
 * changes later is said in a `context` message instead (see `frame.ts`).
 */
import type { Clock } from '../clock.js';
import type { ModelInfo } from '../provider/models.js';
import type { StoredFrame } from '../store/types.js';
import type { Tool } from '../tools/types.js';
import type { ToolDefinition } from '../vocabulary.js';
import { effectiveFrame, frameChange, loadFrame, storeFrame } from './frame.js';
import { toolDefinitions } from './tool-runner.js';
import type { ConversationFrame, HistoryMessage, PermissionMode } from './types.js';

/** Where the frame's parts come from now; read afresh each time, since each can change. */
export interface FrameSources {
  /** Every tool there is now: built-in ones and those of the tool source. */
  tools(): Tool[];
  /** The API's web tools the model takes under the deployment's settings (none without `web`). */
  webTools(): ToolDefinition[];
  /** The permission mode the next tool call runs under. */
  mode(): PermissionMode;
  /** The model's limits; a change of model is said in the frame's change message. */
  modelInfo(): ModelInfo;
  clock: Clock;
}

/** One conversation's frame: frozen at its first turn, its later changes appended to the history. */
export class ConversationFrameState {
  /** The system prompt built when the session opened (today's, not necessarily the frozen one). */
  system = '';
  /** The chat turned the web tools off (`/web off`); they stay declared, the model is told. */
  webOff = false;
  #frame: ConversationFrame | undefined;
  readonly #sources: FrameSources;

  constructor(sources: FrameSources) {
    this.#sources = sources;
  }

  /** Takes the frame and web setting a saved record holds. */
  restore(stored: StoredFrame | undefined, web: 'off' | undefined): void {
    this.#frame = loadFrame(stored);
    this.webOff = web === 'off';
  }

  /** System, tools and mode as they would be built now. */
  current(): ConversationFrame {
    const sources = this.#sources;
    return {
      system: this.system,
      tools: [...toolDefinitions(sources.tools()), ...sources.webTools()],
      mode: sources.mode(),
      ...(this.webOff ? { web: 'off' as const } : {}),
    };
  }

  /** The frame the next request is built with: the frozen one, or today's before the first turn. */
  forRequest(): ConversationFrame {
    return this.#frame ?? this.current();
  }

  /**
   * Freezes the frame on a conversation's first turn; afterwards appends what
   * changed since in a `context` message (never in `system` or `tools`, which
   * stay byte for byte what the first request sent).
   */
  advance(history: HistoryMessage[]): void {
    const now = this.current();
    if (!this.#frame) {
      // The tools are declared even when the chat has the web off, so that turning it on later
      // changes no byte of them; the first turn then begins by saying it is off.
      const { web: _off, ...declared } = now;
      this.#frame = declared;
      if (!now.web) return;
    }
    const sources = this.#sources;
    const change = frameChange(effectiveFrame(this.#frame, history), now, sources.modelInfo(), sources.clock);
    if (change) history.push(change);
  }

  /** After a compaction a new conversation starts from the summary: its frame is what the model knows now. */
  restart(): void {
    if (this.#frame) this.#frame = this.current();
  }

  /** Whether the model may use its web tools: `unavailable` when the deployment or the model offers none. */
  web(): 'on' | 'off' | 'unavailable' {
    const declared = this.#frame
      ? this.#frame.tools.some((t) => t.server)
      : this.#sources.webTools().length > 0;
    if (!declared) return 'unavailable';
    return this.webOff ? 'off' : 'on';
  }

  /** The short names of the web tools this conversation declared (or would declare). */
  webToolNames(): string[] {
    const tools = this.#frame ? this.#frame.tools.filter((t) => t.server) : this.#sources.webTools();
    return tools.map((t) => (t.name === 'web_search' ? 'search' : t.name === 'web_fetch' ? 'fetch' : t.name));
  }

  /** The record's fields for the frame and the web setting (absent while unset). */
  recordFields(): { frame?: StoredFrame; web?: 'off' } {
    return {
      ...(this.#frame ? { frame: storeFrame(this.#frame) } : {}),
      ...(this.webOff ? { web: 'off' as const } : {}),
    };
  }
}
