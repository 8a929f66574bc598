/**
 * The fake Messages API's tokenizer: its "truth" for usage, the
 * token-counting endpoint and the window check. It splits text roughly the
 * way a BPE tokenizer does (a space joins the word after it, words of up to
 * six letters are a token, digits go in threes, each punctuation mark and
 * each CJK character is a token), so JSON, base64 and non-Latin text cost
 * what they cost on the real API, not characters / 4.
 */
import { imageSize } from 'image-size';

const TOKEN =
  /[ \n]?[A-Za-z]{1,6}|\d{1,3}|[\u2e80-\ud7af]|[\ud800-\udbff][\udc00-\udfff]|[\u0080-\u2e7f\ud7b0-\ud7ff\ue000-\uffff]{1,2}|[\s\S]/g;

/** Tokens of a piece of text. */
export function fakeTextTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** Vision page: about width × height / 750 tokens; images are scaled to fit ~1,600 tokens. */
function imageTokens(base64: string): number {
  try {
    const { width = 0, height = 0 } = imageSize(Buffer.from(base64.slice(0, 87_384), 'base64'));
    return Math.min(1_600, Math.ceil((width * height) / 750)) || 1_600;
  } catch {
    return 1_600;
  }
}

/** Pages of a PDF, as its page objects (or its page tree's /Count) say. */
export function fakePdfPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  const objects = text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
  const counts = [...text.matchAll(/\/Count\s+(\d+)/g)].map((m) => Number(m[1]));
  return Math.max(objects, ...counts, 1);
}

/** Tokens of one content block (the prompt cache counts the prompt block by block). */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
export function blockTokens(b: any): number {
  if (typeof b === 'string') return fakeTextTokens(b);
  switch (b?.type) {
    case 'text':
      return fakeTextTokens(b.text ?? '');
    case 'image':
      return imageTokens(b.source?.data ?? '');
    case 'document':
      // PDF support page: each page costs its text (1,500-3,000 tokens) plus its picture.
      return b.source?.type === 'base64'
        ? fakePdfPages(Buffer.from(String(b.source.data ?? ''), 'base64')) * 2_300
        : fakeTextTokens(JSON.stringify(b.source ?? {}));
    case 'tool_use':
      return fakeTextTokens(b.name ?? '') + fakeTextTokens(JSON.stringify(b.input ?? {}));
    case 'tool_result':
      return typeof b.content === 'string'
        ? fakeTextTokens(b.content)
        : (b.content ?? []).reduce((n: number, c: unknown) => n + blockTokens(c), 0);
    case 'thinking':
      return fakeTextTokens(b.thinking ?? '') + Math.ceil((b.signature ?? '').length / 4);
    case 'redacted_thinking':
      return Math.ceil((b.data ?? '').length / 4);
    default:
      return fakeTextTokens(JSON.stringify(b));
  }
}

/** Input tokens of a request body: system prompt, tool definitions and messages. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
export function fakeInputTokens(body: any): number {
  let tokens = 0;
  // The system prompt comes as a string, or as text blocks when it carries a cache breakpoint.
  if (typeof body?.system === 'string') tokens += fakeTextTokens(body.system);
  else for (const b of Array.isArray(body?.system) ? body.system : []) tokens += blockTokens(b);
  // A breakpoint's `cache_control` is not prompt text: tools count as they would without it.
  if (Array.isArray(body?.tools))
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
    tokens += fakeTextTokens(JSON.stringify(body.tools.map(({ cache_control: _c, ...t }: any) => t)));
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    const blocks = typeof m.content === 'string' ? [m.content] : (m.content ?? []);
    for (const b of blocks) tokens += blockTokens(b);
  }
  return Math.max(1, tokens);
}
