import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/session/types.js';
import { createMemorySessionStore } from '../../src/store/index.js';
import { SESSION_SCHEMA_VERSION } from '../../src/store/types.js';
import { pngBase64 } from '../fakes/images.js';
import { recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const SONNET = 'claude-sonnet-5-5';
const at = (n: number) => `2026-11-30T10:00:0${n}.000Z`;

/** A saved session whose history already holds `messages` (as an older version could have written it). */
async function savedSession(messages: HistoryMessage[]) {
  const store = createMemorySessionStore();
  await store.create({
    version: SESSION_SCHEMA_VERSION,
    id: 'sess-old',
    createdAt: at(0),
    updatedAt: at(0),
    model: SONNET,
    permissionMode: 'default',
    contextState: { maxTokens: 1_000_000, usedTokens: 0, usedPercentage: 0, remainingPercentage: 100 },
    messageCount: messages.length,
    messages,
  });
  return store;
}

describe('a session never locks', () => {
  it('an image over the 5 MB base64 limit is not sent: the chat is told, the turn and /compact work', async () => {
    const s = fx.session({ model: SONNET });
    const rec = recordEvents(s);
    const big = pngBase64(1200, 900, 6_300_000); // a 4.5 MB photo: 6.3 MB as base64
    fx.fake.enqueue({ text: 'I can only read your text.' });
    const result = await (await s.submit({ text: 'look', images: [{ mediaType: 'image/png', data: big }] }))
      .completed;
    expect(result.state).toBe('complete');
    expect(rec.of('notice')[0]?.[0]).toMatch(
      /Image 1 was not sent: it is 6\.0 MB as base64, over the API's 5 MB limit/,
    );
    expect(JSON.stringify(fx.fake.requests[0])).not.toContain(big.slice(0, 100));
    fx.fake.enqueue({ text: 'Summary of the chat.' });
    await expect(s.compactContext()).resolves.toMatchObject({ trigger: 'manual' });
  });

  it('an image over 8000 px is refused before sending; a fine one goes out', async () => {
    const s = fx.session({ model: SONNET });
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: 'ok' });
    await (
      await s.submit({
        text: 'two',
        images: [
          { mediaType: 'image/png', data: pngBase64(9000, 100) },
          { mediaType: 'image/png', data: pngBase64(800, 600) },
        ],
      })
    ).completed;
    expect(rec.of('notice')[0]?.[0]).toMatch(/9000 × 100 pixels, over the API's 8000 × 8000 limit/);
    const sent = fx.fake.requests[0].messages[0].content.map((b: { type: string }) => b.type);
    expect(sent).toEqual(['text', 'text', 'image']);
  });

  it('a 400 for a block already in the history is repaired once, the chat told, and the turn answered', async () => {
    const bad = pngBase64(9500, 9500);
    const store = await savedSession([
      {
        id: 'm1',
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', mediaType: 'image/png', data: bad },
        ],
        createdAt: at(1),
      },
      {
        id: 'm2',
        role: 'assistant',
        content: [{ type: 'text', text: 'seen' }],
        createdAt: at(2),
        state: 'complete',
      },
    ]);
    const s = fx.session({ model: SONNET, sessionStore: store, resumeSessionId: 'sess-old' });
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: 'Answered.' });
    const result = await (await s.submit('and now?')).completed;
    expect(result.response).toContain('Answered.');
    expect(fx.fake.log.filter((e) => e.finished)).toHaveLength(2); // the 400, then the repaired request
    expect(rec.of('notice')[0]?.[0]).toMatch(
      /The API refused an image in this conversation; it was replaced by a note/,
    );
    expect(JSON.stringify(fx.fake.requests[1])).not.toContain(bad.slice(0, 200));
    // The next turn goes straight through.
    fx.fake.enqueue({ text: 'Again.' });
    await (await s.submit('once more')).completed;
    expect(fx.fake.requests).toHaveLength(3);
  });

  it('a request over the window after dense tool output: old output is trimmed and the turn answered', async () => {
    const dense = JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ id: i, v: [i, i * 2, i % 7] })));
    const messages: HistoryMessage[] = [];
    for (let i = 0; i < 4; i++) {
      messages.push(
        {
          id: `u${i}`,
          role: 'user',
          content: [{ type: 'text', text: `read data${i}.json` }],
          createdAt: at(1),
        },
        {
          id: `a${i}`,
          role: 'assistant',
          content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `data${i}.json` } }],
          createdAt: at(2),
          state: 'complete',
        },
        {
          id: `r${i}`,
          role: 'user',
          content: [{ type: 'tool_result', toolUseId: `t${i}`, content: dense }],
          createdAt: at(3),
        },
        {
          id: `d${i}`,
          role: 'assistant',
          content: [{ type: 'text', text: 'read' }],
          createdAt: at(4),
          state: 'complete',
        },
      );
    }
    const store = await savedSession(messages);
    const s = fx.session({
      model: SONNET,
      sessionStore: store,
      resumeSessionId: 'sess-old',
      autoCompactThreshold: false,
    });
    const rec = recordEvents(s);
    fx.fake.contextWindow = 150_000; // the four reads are ~290K tokens by the fake's count
    fx.fake.enqueue({ text: 'Here is the total.' });
    const result = await (await s.submit('sum them')).completed;
    expect(result.response).toContain('Here is the total.');
    expect(
      rec
        .of('notice')
        .map(([n]) => n)
        .join('\n'),
    ).toMatch(/characters of old tool output \(\d results?\) were trimmed/);
  });
});
