/**
 * A platform's dialect is its own object, defined outside src/ from the
 * helpers src/bot/format/dialect.ts exports: the renderer, the mention
 * policies and native Markdown streams follow its rules with no change to
 * the core. The platform here writes mentions as `<at>name</at>`.
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/bot/adapter-contract.js';
import { markdownSyntax } from '../../../src/bot/format/dialect.js';
import { renderMarkdown } from '../../../src/bot/format/index.js';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';

const atMarkdown: Dialect = {
  name: 'at-markdown',
  syntax: markdownSyntax({ headingMax: 3, keepsTables: false }),
  mentions: { user: /<at>(?!everyone<)[^<>\n]+<\/at>/, mass: /<at>everyone<\/at>/, userLink: /^at:\/\/\w+$/ },
  rawMarkdown: {
    // No global flag: the core still breaks every match.
    breaks: { none: /<(?=at>)/ },
    undecided: [[/<(?:a|at)?$/, 1]],
  },
};

describe('a dialect defined by its platform', () => {
  it('renders with its own markup, keeping its mentions only where the policy allows', () => {
    const md = '#### Hi <at>Ann</at> and <at>everyone</at>, [Ann](at://ann)';
    expect(renderMarkdown(md, atMarkdown)).toBe(
      '### Hi \\<at\\>Ann\\</at\\> and \\<at\\>everyone\\</at\\>, Ann (at://ann)',
    );
    expect(renderMarkdown(md, atMarkdown, { mentions: 'users' })).toBe(
      '### Hi <at>Ann</at> and \\<at\\>everyone\\</at\\>, [Ann](<at://ann>)',
    );
    expect(renderMarkdown(md, atMarkdown, { mentions: 'all' })).toContain(
      '<at>Ann</at> and <at>everyone</at>',
    );
  });

  it('carries the model’s text in a native stream with every mention broken', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      nativeStream: true,
      capabilities: {
        minEditIntervalMs: 1000,
        dialect: atMarkdown,
        nativeStream: true,
        nativeStreamMaxMs: 30_000,
      },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const reply = outbox.stream('test:1');
    reply.append('Ask <at>Ann</at> or <at>Bo</at> **now**');
    const done = reply.finish();
    await clock.advance(5000);
    const { messageIds } = await done;
    expect(adapter.messages.get(messageIds[0]!)).toMatchObject({
      text: 'Ask <\u200bat>Ann</at> or <\u200bat>Bo</at> **now**',
      format: atMarkdown,
    });
  });
});
