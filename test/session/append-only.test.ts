/**
 * The conversation is append-only (Prefix checks on thinking blocks page of
 * platform.claude.com/docs): for any run of a session — replies with
 * thinking, tool loops, replies continued after the output limit, MCP tools
 * that appear and vanish, mode changes, a restart with new project
 * instructions — every request begins with the request before it: the same
 * `system`, the same `tools`, and the earlier messages unchanged. Driven
 * through the real session and the real SDK against the loopback fake.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InteractiveSession } from '../../src/session/index.js';
import { createUserSessionStore } from '../../src/store/index.js';
import type { Tool, ToolSource } from '../../src/tools/types.js';
import type { ScriptedResponse } from '../fakes/anthropic.js';
import { expectAppendOnly } from '../helpers/append-only.js';
import { fakeProvider, useSessionFixture } from './helpers.js';

const MODEL = 'claude-sonnet-5-5';

type Step =
  | { kind: 'ask' }
  | { kind: 'tool' }
  | { kind: 'cut'; times: 1 | 2 }
  | { kind: 'mcp'; on: boolean }
  | { kind: 'mode' }
  | { kind: 'resume'; instructions: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'ask' }),
  fc.constant<Step>({ kind: 'tool' }),
  fc.constantFrom<Step>({ kind: 'cut', times: 1 }, { kind: 'cut', times: 2 }),
  fc.boolean().map<Step>((on) => ({ kind: 'mcp', on })),
  fc.constant<Step>({ kind: 'mode' }),
  fc
    .constantFrom('Be brief.', 'Be thorough.')
    .map<Step>((instructions) => ({ kind: 'resume', instructions })),
);

/** A tool of a pretend MCP server that connects and drops. */
const remoteTool: Tool = {
  name: 'mcp__notes__search',
  description: 'Searches the notes.',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  toolClass: 'inspect',
  summarize: () => 'search',
  scopeKey: () => 'search',
  run: async () => ({ content: 'found nothing' }),
};

describe('append-only conversations', () => {
  const fx = useSessionFixture();

  it('request n+1 begins with request n, whatever happens in between', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 7 }), async (steps) => {
        fx.fake.reset();
        const store = createUserSessionStore(
          join(fx.cwd, `.sessions-${Math.random().toString(36).slice(2)}`),
        );
        let online = false;
        const source: ToolSource = { tools: () => (online ? [remoteTool] : []), servers: () => [] };
        const options = { cwd: fx.cwd, toolEnv: {}, sessionStore: store, toolSource: source, model: MODEL };
        let session = fx.track(
          await InteractiveSession.open({
            ...options,
            provider: fakeProvider(fx.fake),
            systemPrompt: 'Be brief.',
          }),
        );
        let n = 0;
        // The run ends with a turn, so there is always a last request to look at.
        for (const s of [...steps, { kind: 'ask' } as const]) {
          if (s.kind === 'mcp') online = s.on;
          else if (s.kind === 'mode')
            session
              .getSession()
              .setPermissionMode(session.getSession().getPermissionMode() === 'plan' ? 'default' : 'plan');
          else if (s.kind === 'resume') {
            const id = session.getSession().getSessionId();
            await session.close();
            session = fx.track(
              await InteractiveSession.open({
                ...options,
                provider: fakeProvider(fx.fake),
                resumeSessionId: id,
                systemPrompt: s.instructions,
              }),
            );
            continue;
          }
          const script: ScriptedResponse[] =
            s.kind === 'tool'
              ? [
                  { thinking: ['look first'], toolUse: [{ name: 'Glob', input: { pattern: '*' } }] },
                  { thinking: ['done'], text: 'ok' },
                ]
              : s.kind === 'cut'
                ? [
                    ...Array.from({ length: s.times }, () => ({
                      thinking: ['long'],
                      text: 'part',
                      stopReason: 'max_tokens',
                    })),
                    { text: 'end' },
                  ]
                : [{ thinking: ['hm'], text: 'sure' }];
          fx.fake.enqueue(...script);
          const { completed } = await session.submit(`message ${n++}`);
          await completed;
        }
        // No request refused, no block dropped by a binding check, each request a continuation of the last;
        // and no thinking lost: the last request carries every thinking block the replies before it had.
        const bodies = expectAppendOnly(fx.fake);
        const replies = session.getFullHistory().filter((m) => m.role === 'assistant' && m.kind !== 'notice');
        const earlier = replies.slice(0, -1).flatMap((m) => m.content.filter((b) => b.type === 'thinking'));
        const sent = JSON.stringify(bodies.at(-1).messages).match(/"type":"thinking"/g) ?? [];
        expect(sent.length).toBe(earlier.length);
      }),
      { numRuns: 12 },
    );
  }, 60_000);
});
