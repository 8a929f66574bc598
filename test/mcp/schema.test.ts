/**
 * Input schemas the Messages API refuses (a top-level oneOf/allOf/anyOf)
 * are rewritten only where the rewrite accepts the same inputs, and the
 * structured part of a result is sent only when it adds something.
 */
import { describe, expect, it } from 'vitest';
import { toToolResult } from '../../src/mcp/results.js';
import { apiInputSchema } from '../../src/mcp/schema.js';
import { validate } from '../fakes/anthropic-rules.js';

describe('MCP input schemas for the Messages API', () => {
  it('merges a top-level allOf of object schemas into one the API takes', () => {
    const out = apiInputSchema({
      type: 'object',
      properties: { repo: { type: 'string' } },
      allOf: [
        { properties: { title: { type: 'string' } }, required: ['title'] },
        { properties: { repo: { minLength: 3 } }, required: ['repo'] },
      ],
    });
    expect(out).toEqual({
      schema: {
        type: 'object',
        properties: {
          repo: { allOf: [{ type: 'string' }, { minLength: 3 }] },
          title: { type: 'string' },
        },
        required: ['title', 'repo'],
      },
    });
  });

  it('inlines a single-branch oneOf and leaves out real alternatives with the reason', () => {
    expect(apiInputSchema({ type: 'object', oneOf: [{ properties: { a: { type: 'string' } } }] })).toEqual({
      schema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(
      apiInputSchema({
        type: 'object',
        properties: { id: {}, uri: {} },
        oneOf: [{ required: ['id'] }, { required: ['uri'] }],
      }),
    ).toEqual({ reason: expect.stringContaining('top-level oneOf of 2 alternatives') });
    expect(
      apiInputSchema({ type: 'object', allOf: [{ properties: {}, additionalProperties: false }] }),
    ).toEqual({
      reason: expect.stringContaining('limits additionalProperties'),
    });
    expect(apiInputSchema({ type: 'object', allOf: [{ $ref: '#/$defs/x' }] })).toEqual({
      reason: expect.stringContaining('"$ref"'),
    });
  });

  it('gives the fake API, which refuses top-level combinators as the real one does, a schema it takes', () => {
    const body = (schema: unknown) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 't', description: 'd', input_schema: schema }],
    });
    const raw = { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }] };
    expect(validate(body(raw), '', new Map() as never)).toMatch(/does not support oneOf, allOf, or anyOf/);
    const fixed = apiInputSchema(raw);
    expect('schema' in fixed && validate(body(fixed.schema), '', new Map() as never)).toBeUndefined();
  });
});

describe('structured results', () => {
  it('adds the structured content when it holds values the text does not, without base64', () => {
    const data = 'A'.repeat(4_000);
    const out = toToolResult(
      {
        content: [{ type: 'text', text: 'Uploaded.' }],
        structuredContent: { id: 4242, thumbnail: data },
      },
      30_000,
    );
    expect(out.content).toBe(
      'Uploaded.\nStructured result: {"id":4242,"thumbnail":"[base64, 3 KB, left out]"}',
    );
  });

  it('leaves it out when the text already says it', () => {
    const structuredContent = { temperature: 22, conditions: 'Sunny' };
    const out = toToolResult(
      { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent },
      30_000,
    );
    expect(out.content).toBe('{"temperature":22,"conditions":"Sunny"}');
  });
});
