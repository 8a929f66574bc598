/**
 * An MCP tool result as the agent's tool result: text blocks, embedded text
 * resources and resource links become text (capped like Bash's output),
 * images go back as images, once (the session checks them against the API's
 * limits), what the model cannot read (audio, binary resources) is named
 * instead of sent, and `isError` stays an error.
 *
 * `structuredContent` is added as text only when it says something the
 * content blocks do not: the spec asks servers to repeat it as a text block,
 * and servers like server-filesystem's `read_media_file` repeat their image
 * in it, so sending it as well would pay for everything twice. Base64 in it
 * is never sent.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../bytes.js';
import { CappedOutput } from '../tools/output.js';
import type { ToolResult } from '../tools/types.js';

/** Images one result may carry; more are named, not sent. */
export const MCP_MAX_RESULT_IMAGES = 8;

type Block = CallToolResult['content'][number];

/**
 * Converts `result`, keeping at most `maxOutputChars` characters of text.
 *
 * @example
 * toToolResult({ content: [{ type: 'text', text: 'done' }] }, 30_000); // { content: 'done' }
 */
export function toToolResult(result: CallToolResult, maxOutputChars: number): ToolResult {
  const text = new CappedOutput(maxOutputChars);
  const images: NonNullable<ToolResult['images']> = [];
  let first = true;
  const add = (piece: string) => {
    text.append(first ? piece : `\n${piece}`);
    first = false;
  };
  for (const block of result.content ?? []) {
    if (block.type === 'image' && images.length < MCP_MAX_RESULT_IMAGES) {
      images.push({ mediaType: block.mimeType, data: block.data });
      continue;
    }
    add(describe(block));
  }
  const structured = structuredExtra(result);
  if (structured !== undefined) add(structured);
  if (first && images.length === 0) add('(the tool returned no content)');
  return {
    content: text.text(),
    ...(images.length > 0 ? { images } : {}),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

/** Strings this long that are all base64 characters are binary data, whatever key holds them. */
const BASE64_MIN_CHARS = 512;
const BASE64 = /^[A-Za-z0-9+/=\r\n]+$/;

/**
 * `structuredContent` as JSON, with base64 left out, when it holds a value
 * the content blocks do not; otherwise undefined.
 */
function structuredExtra(result: CallToolResult): string | undefined {
  if (result.structuredContent === undefined) return undefined;
  const blocks = result.content ?? [];
  const binary = new Set<string>();
  for (const block of blocks) {
    if ('data' in block && typeof block.data === 'string') binary.add(block.data);
    if (block.type === 'resource' && 'blob' in block.resource) binary.add(String(block.resource.blob));
  }
  const leaves: string[] = [];
  const stripped = JSON.stringify(result.structuredContent, (_key, value: unknown) => {
    if (typeof value === 'string' && (binary.has(value) || isBase64(value)))
      return `[base64, ${approxBytes(value)}, left out]`;
    if (value === null || typeof value !== 'object') leaves.push(String(value));
    return value;
  });
  // What the blocks already say: their text and their fields (an image's type and media type).
  const said = blocks.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
  const adds = leaves.some((leaf) => !said.includes(leaf));
  return adds ? `Structured result: ${stripped}` : undefined;
}

function isBase64(value: string): boolean {
  return value.length >= BASE64_MIN_CHARS && BASE64.test(value);
}

function describe(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image (${block.mimeType}) left out: a result carries at most ${MCP_MAX_RESULT_IMAGES} images]`;
    case 'audio':
      return `[audio (${block.mimeType}, ${approxBytes(block.data)}) left out: the model cannot listen to it]`;
    case 'resource_link':
      return `[resource link: ${block.name} ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}${block.description ? ` - ${block.description}` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string')
        return `[resource ${resource.uri}]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, ${approxBytes(blob)}, left out]`;
    }
    default:
      return `[a ${(block as { type?: string }).type ?? 'content'} block left out: not understood]`;
  }
}

/** The decoded size of `base64`, near enough to tell the model what it is missing. */
function approxBytes(base64: string): string {
  return formatBytes(Math.floor((base64.length * 3) / 4));
}
