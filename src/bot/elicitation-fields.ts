/**
 * One field of a tool's question (MCP elicitation) as a chat prompt: what
 * it says, its buttons (one per option of an enum, Yes / No for a boolean,
 * Skip for an optional field, then Decline and Cancel), and the checking of
 * a typed answer against the field's schema, with a reason a person can act
 * on when it does not fit.
 */
import type { ElicitationField, ElicitationQuestion, ElicitationValue } from '../session/index.js';
import type { Button } from './adapter-contract.js';
import { encodeButton } from './buttons.js';
import { showHidden } from './visible-text.js';

/** Most option buttons a field gets; more options are answered by typing one. */
export const MAX_OPTION_BUTTONS = 24;
/** Longest button label: platforms cut or refuse longer ones (Discord: 80 characters). */
const LABEL_MAX = 40;

/** A checked answer, or why it does not fit. */
export type Parsed = { value: ElicitationValue } | { reason: string };

/** The text of the prompt asking for `field` (the `index`th of the question's fields). */
export function fieldPrompt(
  question: ElicitationQuestion,
  index: number,
  answered: readonly string[],
  requester: string,
): string {
  const field = question.fields[index];
  const lines = [questionHeading(question, requester, 'asks')];
  for (const line of answered) lines.push(`✓ ${line}`);
  if (!field) return lines.join('\n');
  const count = question.fields.length > 1 ? ` (${index + 1} of ${question.fields.length})` : '';
  lines.push('', `${oneLine(field.label)}${field.required ? '' : ' (optional)'}${count}`);
  if (field.description) lines.push(showHidden(field.description));
  lines.push(hint(field));
  return lines.join('\n');
}

/** `❓ <server> asks <person>: <message>`, hidden characters shown. */
export function questionHeading(
  question: ElicitationQuestion,
  requester: string,
  verb: 'asks' | 'asked',
): string {
  return `❓ ${oneLine(question.source)} ${verb} ${requester}: ${showHidden(question.message)}`;
}

/** How to answer `field`. */
function hint(field: ElicitationField): string {
  const range = rangeText(field);
  switch (field.kind) {
    case 'boolean':
      return 'Press Yes or No.';
    case 'choice':
      return (field.options?.length ?? 0) > MAX_OPTION_BUTTONS
        ? `Reply with one of: ${optionList(field)}.`
        : 'Press one, or reply with it.';
    case 'choices':
      return `Reply with ${range || 'one or more'} of: ${optionList(field)}, separated by commas.`;
    case 'number':
    case 'integer':
      return `Reply with ${field.kind === 'integer' ? 'a whole number' : 'a number'}${range ? ` ${range}` : ''}.`;
    default:
      return `Reply with ${FORMATS[field.format ?? ''] ?? 'text'}${range ? ` of ${range} characters` : ''}.`;
  }
}

const FORMATS: Record<string, string> = {
  email: 'an email address',
  uri: 'a web address (https://…)',
  date: 'a date (YYYY-MM-DD)',
  'date-time': 'a date and time (YYYY-MM-DDTHH:MM:SSZ)',
};

function rangeText(field: ElicitationField): string {
  const { min, max } = field;
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `at least ${min}`;
  if (max !== undefined) return `at most ${max}`;
  return '';
}

/**
 * The buttons for `field`; `stepId` is the prompt's short id (10
 * characters; with an option's index, 14 bytes of payload: far inside
 * Telegram's 64-byte callback_data and Discord's 100-character custom_id).
 * Without a field (a question with nothing to fill in): Accept.
 */
export function fieldButtons(field: ElicitationField | undefined, stepId: string): Button[][] {
  const rows: Button[][] = [];
  const pick = (i: number, label: string): Button => ({
    label: cut(label),
    payload: encodeButton('pick', `${stepId}${i.toString(36).padStart(2, '0')}`),
  });
  const end: Button[] = [];
  if (!field) {
    end.push({ ...pick(0, 'Accept'), style: 'primary' });
    return [[...end, ...refuse(stepId)]];
  }
  if (field.kind === 'boolean') rows.push([pick(1, 'Yes'), pick(0, 'No')]);
  const options = field.options ?? [];
  if (field.kind === 'choice' && options.length <= MAX_OPTION_BUTTONS)
    for (let i = 0; i < options.length; i += 3)
      rows.push(options.slice(i, i + 3).map((o, j) => pick(i + j, o.label)));
  if (!field.required)
    end.push({
      label: field.default === undefined ? 'Skip' : cut(`Skip (${shown(field.default)})`),
      payload: encodeButton('skip', stepId),
    });
  rows.push([...end, ...refuse(stepId)]);
  return rows;
}

/** Decline and Cancel, on every step. */
function refuse(stepId: string): Button[] {
  return [
    { label: 'Decline', payload: encodeButton('decline', stepId), style: 'danger' },
    { label: 'Cancel', payload: encodeButton('cancel', stepId) },
  ];
}

/** The value a pressed option button (its index) stands for. */
export function pickedValue(field: ElicitationField, index: number): ElicitationValue | undefined {
  if (field.kind === 'boolean') return index === 1;
  if (field.kind === 'choice') return field.options?.[index]?.value;
  return undefined;
}

/** Checks a typed answer against `field`'s schema. */
export function parseAnswer(field: ElicitationField, raw: string): Parsed {
  const text = raw.trim();
  if (!text) return { reason: 'The answer is empty.' };
  switch (field.kind) {
    case 'boolean': {
      if (/^(y|yes|true|1)$/i.test(text)) return { value: true };
      if (/^(n|no|false|0)$/i.test(text)) return { value: false };
      return { reason: 'Answer yes or no.' };
    }
    case 'choice': {
      const option = findOption(field, text);
      return option === undefined ? { reason: `Choose one of: ${optionList(field)}.` } : { value: option };
    }
    case 'choices': {
      const parts = text
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const values: string[] = [];
      for (const part of parts) {
        const option = findOption(field, part);
        if (option === undefined) return { reason: `"${part}" is not one of: ${optionList(field)}.` };
        if (!values.includes(option)) values.push(option);
      }
      const outside = outOfRange(field, values.length);
      return outside ? { reason: `Choose ${outside} of the options.` } : { value: values };
    }
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n)) return { reason: `"${text}" is not a number.` };
      if (field.kind === 'integer' && !Number.isInteger(n)) return { reason: `${n} is not a whole number.` };
      const outside = outOfRange(field, n);
      return outside ? { reason: `The number must be ${outside}.` } : { value: n };
    }
    default: {
      const outside = outOfRange(field, [...text].length);
      if (outside) return { reason: `The answer must be ${outside} characters long.` };
      const problem = formatProblem(field.format, text);
      return problem ? { reason: problem } : { value: text };
    }
  }
}

/** `label: value`, for the lines answered so far. */
export function answeredLine(field: ElicitationField, value: ElicitationValue | undefined): string {
  return `${oneLine(field.label)}: ${value === undefined ? '(skipped)' : shown(labelOf(field, value))}`;
}

function labelOf(field: ElicitationField, value: ElicitationValue): ElicitationValue {
  const label = (v: string) => field.options?.find((o) => o.value === v)?.label ?? v;
  if (typeof value === 'string') return label(value);
  if (Array.isArray(value)) return value.map(label);
  return value;
}

function findOption(field: ElicitationField, text: string): string | undefined {
  const lower = text.toLowerCase();
  return (field.options ?? []).find((o) => o.value.toLowerCase() === lower || o.label.toLowerCase() === lower)
    ?.value;
}

function outOfRange(field: ElicitationField, n: number): string | undefined {
  const { min, max } = field;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) return rangeText(field);
  return undefined;
}

/** Why `text` is not in `format` (the spec's string formats); undefined when it is. */
function formatProblem(format: string | undefined, text: string): string | undefined {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? undefined : 'That is not an email address.';
    case 'uri':
      return URL.canParse(text) && /^[a-z][a-z0-9+.-]*:/i.test(text)
        ? undefined
        : 'That is not a full web address; start it with https://.';
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text))
        ? undefined
        : 'That is not a date in the form YYYY-MM-DD.';
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
        !Number.isNaN(Date.parse(text))
        ? undefined
        : 'That is not a date and time like 2026-01-31T14:30:00Z.';
    default:
      return undefined;
  }
}

function optionList(field: ElicitationField): string {
  return (field.options ?? []).map((o) => o.label).join(', ');
}

function shown(value: ElicitationValue): string {
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return oneLine(String(value));
}

function oneLine(text: string): string {
  return showHidden(text.replace(/[\r\n]+/g, ' '));
}

function cut(label: string): string {
  const chars = [...label.replace(/[\r\n]+/g, ' ')];
  return chars.length > LABEL_MAX ? `${chars.slice(0, LABEL_MAX - 1).join('')}…` : chars.join('');
}
