/**
 * A tool's question field by field: typed answers checked against the
 * field's schema (the spec's string formats, number ranges, enums by value
 * or label, multi-selects), and buttons whose payloads fit every platform.
 */
import { describe, expect, it } from 'vitest';
import { fieldButtons, parseAnswer } from '../../src/bot/elicitation-fields.js';
import type { ElicitationField } from '../../src/tools/types.js';

const field = (f: Partial<ElicitationField>): ElicitationField => ({
  name: 'x',
  label: 'X',
  kind: 'string',
  required: true,
  ...f,
});

describe('typed answers', () => {
  it('are checked against the string formats', () => {
    const date = field({ format: 'date' });
    expect(parseAnswer(date, '2026-02-28')).toEqual({ value: '2026-02-28' });
    expect(parseAnswer(date, 'tomorrow')).toEqual({ reason: 'That is not a date in the form YYYY-MM-DD.' });
    expect(parseAnswer(field({ format: 'date-time' }), '2026-01-31T14:30:00Z')).toEqual({
      value: '2026-01-31T14:30:00Z',
    });
    expect(parseAnswer(field({ format: 'uri' }), 'example.org')).toHaveProperty('reason');
    expect(parseAnswer(field({ format: 'email' }), 'a@b.co')).toEqual({ value: 'a@b.co' });
    expect(parseAnswer(field({ min: 3, max: 5 }), 'ab')).toEqual({
      reason: 'The answer must be from 3 to 5 characters long.',
    });
  });

  it('are numbers in range, whole where the field is an integer', () => {
    const n = field({ kind: 'integer', min: 1, max: 10 });
    expect(parseAnswer(n, ' 7 ')).toEqual({ value: 7 });
    expect(parseAnswer(n, '7.5')).toEqual({ reason: '7.5 is not a whole number.' });
    expect(parseAnswer(n, 'seven')).toEqual({ reason: '"seven" is not a number.' });
    expect(parseAnswer(field({ kind: 'number', min: 0 }), '-1')).toEqual({
      reason: 'The number must be at least 0.',
    });
  });

  it('are options by value or label; several, within the count', () => {
    const options = [
      { value: 'pet-1', label: 'Cats' },
      { value: 'pet-2', label: 'Dogs' },
    ];
    expect(parseAnswer(field({ kind: 'choice', options }), 'dogs')).toEqual({ value: 'pet-2' });
    expect(parseAnswer(field({ kind: 'choice', options }), 'fish')).toEqual({
      reason: 'Choose one of: Cats, Dogs.',
    });
    const many = field({ kind: 'choices', options, max: 1 });
    expect(parseAnswer(many, 'Cats, pet-2')).toEqual({ reason: 'Choose at most 1 of the options.' });
    expect(parseAnswer(field({ kind: 'boolean' }), 'Yes')).toEqual({ value: true });
    expect(parseAnswer(field({ kind: 'boolean' }), 'maybe')).toEqual({ reason: 'Answer yes or no.' });
  });
});

describe('buttons', () => {
  it('fit Telegram callback_data (64 bytes) and Discord labels (80 characters), however many options', () => {
    const options = Array.from({ length: 24 }, (_, i) => ({
      value: `v${i}`,
      label: `${'long label '.repeat(10)}${i}`,
    }));
    const rows = fieldButtons(
      field({ kind: 'choice', options, required: false, default: 'v1' }),
      'abcdefghij',
    );
    const buttons = rows.flat();
    expect(buttons).toHaveLength(24 + 3);
    for (const b of buttons) {
      expect(Buffer.byteLength(b.payload)).toBeLessThanOrEqual(64);
      expect([...b.label].length).toBeLessThanOrEqual(80);
    }
    expect(new Set(buttons.map((b) => b.payload)).size).toBe(buttons.length);
  });
});
