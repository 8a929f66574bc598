/**
 * Conversion between switchboard's provider-neutral shapes and the Anthropic
 * Messages API's parameters.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, ToolResultImage } from '../vocabulary.js';
import type { ProviderMessage, ToolDefinition } from './types.js';

type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
const IMAGE_TYPES = new Set<string>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** One content block as the Messages API expects it, or undefined when the API would reject it. */
export function toApiBlock(block: ContentBlock): Anthropic.ContentBlockParam | undefined {
  switch (block.type) {
    case 'text':
      // The API rejects empty text blocks; an interrupted reply can leave one.
      if (block.text.length === 0) return undefined;
      return block.citations
        ? ({
            type: 'text',
            text: block.text,
            citations: block.citations,
          } as unknown as Anthropic.TextBlockParam)
        : { type: 'text', text: block.text };
    case 'image':
      return imageParam(block);
    case 'document':
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: block.data },
        ...(block.title ? { title: block.title } : {}),
      };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: block.input,
        ...(block.caller ? { caller: block.caller } : {}),
      } as Anthropic.ToolUseBlockParam;
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        content: block.images?.length ? resultWithImages(block.content, block.images) : block.content,
        ...(block.isError ? { is_error: true } : {}),
      };
    // Thinking goes back exactly as received, an empty `thinking` included: the signature holds it.
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    // Server tool blocks, fallback, compaction, tool changes, newer types: exactly as received.
    case 'api':
      return block.block as unknown as Anthropic.ContentBlockParam;
  }
}

/**
 * A tool result's text and images as content blocks (Handle tool calls page
 * of platform.claude.com/docs: a tool_result's content may be a list of
 * text and image blocks). No empty text block: the API rejects those.
 */
function resultWithImages(
  text: string,
  images: readonly ToolResultImage[],
): Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> {
  return [...(text.length > 0 ? [{ type: 'text' as const, text }] : []), ...images.map(imageParam)];
}

/** An image, in a message or a tool result alike. */
function imageParam(image: ToolResultImage): Anthropic.ImageBlockParam {
  const mediaType = (IMAGE_TYPES.has(image.mediaType) ? image.mediaType : 'image/png') as ImageMediaType;
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: image.data } };
}

/**
 * Messages for the API: empty messages dropped, consecutive messages of one
 * role merged (the session may hold a summary followed by a new prompt, or a
 * tool result followed by a prompt after an abort). A system message goes
 * as one (`role: "system"`) where the model takes them (`systemMessages`),
 * else its text goes as user text, in the same place.
 */
export function toApiMessages(
  messages: readonly ProviderMessage[],
  systemMessages = true,
): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const message of messages) {
    const role = message.role === 'system' && !systemMessages ? 'user' : message.role;
    const content = message.content
      .filter((b) => role !== 'user' || message.role !== 'system' || b.type === 'text')
      .map(toApiBlock)
      .filter((b): b is Anthropic.ContentBlockParam => b !== undefined);
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) {
      (last.content as Anthropic.ContentBlockParam[]).push(...content);
    } else {
      out.push({ role, content } as Anthropic.MessageParam);
    }
  }
  return out;
}

/** Tool definitions for the API. */
export function toApiTools(tools: readonly ToolDefinition[]): Anthropic.ToolUnion[] {
  return tools.map((t) =>
    // A server tool goes in the API's own shape (Web search tool / Web fetch tool pages).
    // A copy: cache breakpoints are placed on the request's objects, never on the conversation's.
    t.server ? ({ ...t.server } as unknown as Anthropic.ToolUnion) : clientTool(t),
  );
}

function clientTool(t: ToolDefinition): Anthropic.Tool {
  return {
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.inputSchema } as Anthropic.Tool.InputSchema,
  };
}
