/**
 * Server tool blocks across a paused turn (Stop reasons page: a `pause_turn`
 * reply is sent back as it came, last, and the API goes on): the paused
 * reply's blocks go back in order and unchanged, the continuation's cited
 * text reaches the chat with its sources, and the next turn sends the whole
 * turn back, citations included.
 */
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { DEFAULT_WEB_SETTINGS } from '../../src/provider/web-tools.js';
import { InteractiveSession } from '../../src/session/index.js';
import { unmarked } from '../helpers/append-only.js';
import { API_KEY, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();

const search = {
  type: 'server_tool_use',
  id: 'srvtoolu_1',
  name: 'web_search',
  input: { query: 'ginza store' },
};
const results = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_1',
  content: [
    {
      type: 'web_search_result',
      title: 'Apple Ginza',
      url: 'https://apple.example/ginza',
      encrypted_content: 'EqQ',
      page_age: null,
    },
  ],
};
const cited = {
  type: 'text',
  text: 'It opens on Friday.',
  citations: [
    {
      type: 'web_search_result_location',
      url: 'https://apple.example/ginza',
      title: 'Apple Ginza',
      encrypted_index: 'Eo8',
      cited_text: 'opens this Friday',
    },
  ],
};

describe('server tool blocks through a paused turn', () => {
  it('sends the paused blocks back as they came and shows the cited source', async () => {
    const provider = new AnthropicProvider({
      apiKey: API_KEY,
      baseURL: fx.fake.url,
      maxRetries: 0,
      model: 'claude-sonnet-5-5',
    });
    // The API runs only the server tools a request declares.
    const s = fx.track(
      new InteractiveSession({ cwd: fx.cwd, provider, toolEnv: {}, web: DEFAULT_WEB_SETTINGS }),
    );
    const rec = recordEvents(s);
    fx.fake.enqueue(
      { thinking: ['search first'], blocks: [search, results], stopReason: 'pause_turn' },
      { blocks: [cited] },
    );
    const result = await (await s.submit('when does the Ginza store open?')).completed;
    // Cache breakpoints move to the newest blocks: what is compared is the blocks themselves.
    const [, continuation] = fx.fake.requests.map(unmarked);
    const paused = continuation.messages.at(-1);
    expect(paused.role).toBe('assistant');
    expect(paused.content.map((b: { type: string }) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'thinking',
    ]);
    expect(paused.content.slice(0, 2)).toEqual([search, results]);
    expect(rec.text()).toContain('It opens on Friday. [1]');
    expect(result.response).toContain('Sources:\n[1] [Apple Ginza](https://apple.example/ginza)');

    await (await s.submit('thanks')).completed;
    const sentBack = unmarked(fx.fake.requests[2]).messages[1].content;
    expect(sentBack.map((b: { type: string }) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'thinking',
      'text',
    ]);
    expect(sentBack[3]).toEqual(cited);
  });
});
