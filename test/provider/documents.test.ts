/**
 * PDF document blocks through the real SDK to the fake Messages API, which
 * refuses what the PDF support page of platform.claude.com/docs refuses: a
 * source that is not a PDF, an encrypted PDF, more than 100 pages in one
 * request, a request over 32 MB. The session's estimate counts a PDF by its
 * pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/errors.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import type { ProviderRequest } from '../../src/provider/types.js';
import { blockTokens } from '../../src/session/context-tracker.js';
import type { ContentBlock } from '../../src/vocabulary.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { pdfBytes } from '../fakes/pdfs.js';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const doc = (pdf: Buffer): ContentBlock => ({
  type: 'document',
  mediaType: 'application/pdf',
  data: pdf.toString('base64'),
  title: 'r.pdf',
});

async function send(content: ContentBlock[]): Promise<string> {
  const provider = new AnthropicProvider({
    apiKey: 'sk-ant-doc-test-0123456789',
    baseURL: fake.url,
    maxRetries: 0,
  });
  const request: ProviderRequest = {
    model: 'claude-sonnet-5-5',
    messages: [{ role: 'user', content: [...content, { type: 'text', text: 'summarise' }] }],
    tools: [],
    maxTokens: 256,
    signal: new AbortController().signal,
  };
  try {
    for await (const _ of provider.stream(request));
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(SwitchboardError);
    return (err as Error).message;
  }
}

describe('PDF document blocks', () => {
  it('go to the API as base64 PDF sources with their title', async () => {
    expect(await send([doc(pdfBytes(2))])).toBe('ok');
    expect(fake.requests.at(-1).messages[0].content[0]).toEqual({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: pdfBytes(2).toString('base64') },
      title: 'r.pdf',
    });
  });

  it('are refused past 100 pages in one request, encrypted, or not a PDF at all', async () => {
    expect(await send([doc(pdfBytes(60)), doc(pdfBytes(41))])).toMatch(/maximum of 100 PDF pages/);
    expect(await send([doc(pdfBytes(1, { encrypted: true }))])).toMatch(/password protected or encrypted/);
    expect(await send([doc(Buffer.from('PK\x03\x04 not a pdf'))])).toMatch(/PDF specified was not valid/);
    expect(await send([doc(pdfBytes(60)), doc(pdfBytes(40))])).toBe('ok');
  });

  it('a request over 32 MB is refused whole', async () => {
    const padded = Buffer.concat([pdfBytes(1), Buffer.alloc(25 * 1024 * 1024, 32)]);
    const status = fake.log.length;
    expect(await send([doc(padded)])).not.toBe('ok');
    expect(fake.log.length).toBe(status);
  });

  it('are estimated by their pages', () => {
    expect(blockTokens(doc(pdfBytes(4)))).toBe(4 * 3_000);
  });
});
