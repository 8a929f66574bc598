/**
 * What the real API rejects in a message body: content over 2000 characters,
 * empty messages, and components outside Discord's limits (5 rows of 5
 * buttons, custom_id up to 100 characters, labels up to 80).
 */
import { type FakeActionRow, formError } from './model.js';

/** A rejection: HTTP status and JSON body. */
export interface Rejection {
  status: number;
  body: Record<string, unknown>;
}

/** Maximum characters of message content. */
export const MAX_CONTENT = 2000;

/** Checks a create/edit message body; `creating` requires content or components. */
export function validateMessageBody(body: Record<string, unknown>, creating: boolean): Rejection | undefined {
  const content = body.content;
  if (content !== undefined && content !== null) {
    if (typeof content !== 'string')
      return { status: 400, body: formError('content', 'BASE_TYPE_STRING', 'Must be a string.') };
    if ([...content].length > MAX_CONTENT) {
      return {
        status: 400,
        body: formError('content', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_CONTENT} or fewer in length.`),
      };
    }
  }
  const rows = body.components;
  if (rows !== undefined) {
    const rejection = validateComponents(rows);
    if (rejection) return rejection;
  }
  const hasContent = typeof content === 'string' && content.length > 0;
  const hasRows = Array.isArray(rows) && rows.length > 0;
  if (creating && !hasContent && !hasRows && !body.embeds) {
    return { status: 400, body: { code: 50006, message: 'Cannot send an empty message' } };
  }
  return undefined;
}

function validateComponents(rows: unknown): Rejection | undefined {
  if (!Array.isArray(rows))
    return { status: 400, body: formError('components', 'BASE_TYPE_ARRAY', 'Must be an array.') };
  if (rows.length > 5) {
    return {
      status: 400,
      body: formError('components', 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.'),
    };
  }
  for (const [i, row] of (rows as FakeActionRow[]).entries()) {
    if (row.type !== 1 || !Array.isArray(row.components) || row.components.length === 0) {
      return {
        status: 400,
        body: formError(`components.${i}`, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'Invalid row.'),
      };
    }
    if (row.components.length > 5) {
      return {
        status: 400,
        body: formError(
          `components.${i}.components`,
          'BASE_TYPE_MAX_LENGTH',
          'Must be 5 or fewer in length.',
        ),
      };
    }
    for (const [j, button] of row.components.entries()) {
      const at = `components.${i}.components.${j}`;
      if (button.type !== 2)
        return { status: 400, body: formError(`${at}.type`, 'BASE_TYPE_CHOICES', 'Not a button.') };
      if (button.style !== 5 && (typeof button.custom_id !== 'string' || button.custom_id.length === 0)) {
        return {
          status: 400,
          body: formError(`${at}.custom_id`, 'BASE_TYPE_REQUIRED', 'This field is required'),
        };
      }
      if (typeof button.custom_id === 'string' && button.custom_id.length > 100) {
        return {
          status: 400,
          body: formError(`${at}.custom_id`, 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.'),
        };
      }
      if (typeof button.label === 'string' && button.label.length > 80) {
        return {
          status: 400,
          body: formError(`${at}.label`, 'BASE_TYPE_MAX_LENGTH', 'Must be 80 or fewer in length.'),
        };
      }
    }
  }
  return undefined;
}

const COMMAND_NAME = /^[-_\p{L}\p{N}]{1,32}$/u;

/** Checks a bulk-overwrite body of chat input commands as Discord does. */
export function validateCommands(body: unknown): Rejection | undefined {
  if (!Array.isArray(body))
    return { status: 400, body: formError('_', 'BASE_TYPE_ARRAY', 'Must be an array.') };
  const names = new Set<string>();
  for (const [i, cmd] of (body as Record<string, unknown>[]).entries()) {
    const name = cmd.name;
    if (typeof name !== 'string' || !COMMAND_NAME.test(name) || name !== name.toLowerCase()) {
      return {
        status: 400,
        body: formError(`${i}.name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Invalid name.'),
      };
    }
    if (names.has(name)) {
      return {
        status: 400,
        body: formError(`${i}.name`, 'APPLICATION_COMMANDS_DUPLICATE_NAME', 'Duplicate.'),
      };
    }
    names.add(name);
    const description = cmd.description;
    if (typeof description !== 'string' || description.length < 1 || description.length > 100) {
      return { status: 400, body: formError(`${i}.description`, 'BASE_TYPE_BAD_LENGTH', 'Must be 1-100.') };
    }
    let optionalSeen = false;
    for (const [j, opt] of ((cmd.options as Record<string, unknown>[] | undefined) ?? []).entries()) {
      if (typeof opt.name !== 'string' || !COMMAND_NAME.test(opt.name)) {
        return {
          status: 400,
          body: formError(`${i}.options.${j}.name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Bad.'),
        };
      }
      if (opt.required === true && optionalSeen) {
        return {
          status: 400,
          body: formError(
            `${i}.options`,
            'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
            'Required options must be first.',
          ),
        };
      }
      if (opt.required !== true) optionalSeen = true;
      const choices = opt.choices as unknown[] | undefined;
      if (choices && choices.length > 25) {
        return {
          status: 400,
          body: formError(`${i}.options.${j}.choices`, 'BASE_TYPE_MAX_LENGTH', 'Too many.'),
        };
      }
    }
  }
  return undefined;
}
