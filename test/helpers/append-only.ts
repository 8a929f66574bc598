/**
 * What an append-only conversation looks like on the fake Messages API
 * (Prefix checks on thinking blocks page): every request begins with the one
 * before it, none was refused, no thinking block was dropped by a binding
 * check, and a request reads the whole cache the one before it read and wrote.
 */
import { expect } from 'vitest';
import type { FakeAnthropic } from '../fakes/anthropic.js';

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
type Body = any;

/** A request body without its cache breakpoints (they move to the newest message each time). */
export function unmarked(value: Body): Body {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v)));
}

/** Asserts the fake's requests form one append-only conversation; returns their bodies, unmarked. */
export function expectAppendOnly(fake: FakeAnthropic): Body[] {
  const bodies = fake.requests.map(unmarked);
  expect(
    fake.log.every((e) => e.finished && e.usage !== undefined),
    'every request answered',
  ).toBe(true);
  expect(fake.log.flatMap((e) => e.inputTransformations ?? [])).toEqual([]);
  for (let i = 1; i < bodies.length; i++) {
    const [before, after] = [bodies[i - 1], bodies[i]];
    expect(after.system, `system of request ${i}`).toEqual(before.system);
    expect(after.tools, `tools of request ${i}`).toEqual(before.tools);
    expect(after.messages.slice(0, before.messages.length), `messages of request ${i}`).toEqual(
      before.messages,
    );
  }
  return bodies;
}

/** Asserts each request from `from` on read everything the request before it read and wrote. */
export function expectCacheReadsKept(fake: FakeAnthropic, from: number): void {
  for (let i = Math.max(1, from); i < fake.log.length; i++) {
    const [prev, cur] = [fake.log[i - 1]?.usage, fake.log[i]?.usage] as Array<Record<string, number>>;
    expect(cur?.cache_read_input_tokens, `cache read of request ${i}`).toBe(
      (prev?.cache_read_input_tokens ?? 0) + (prev?.cache_creation_input_tokens ?? 0),
    );
  }
}
