/**
 * Button payloads. They are short (`a:k3x9q2mf`) so they fit every platform's
 * limit, Telegram's 64-byte callback_data being the smallest, and carry only
 * a random id: the meaning lives in the core's memory, so a button left over
 * from before a restart decodes fine but finds nothing and is told it expired.
 */
import { randomBytes } from 'node:crypto';
import type { Button } from './adapter-contract.js';

/**
 * What a button does: answer an approval (once, for the session, always by
 * a stored rule, by a confirmed command prefix), stop a reply, extend a
 * budget, or answer a tool's question (pick an option, skip an optional
 * field, decline, cancel).
 */
export type ButtonAction =
  | 'allow'
  | 'allow-session'
  | 'always'
  | 'prefix'
  | 'deny'
  | 'stop'
  | 'extend'
  | 'pick'
  | 'skip'
  | 'decline'
  | 'cancel';

/** A decoded payload. */
export interface ButtonPayload {
  action: ButtonAction;
  id: string;
}

const PREFIX: Record<ButtonAction, string> = {
  allow: 'a',
  'allow-session': 's',
  always: 'r',
  prefix: 'p',
  deny: 'd',
  stop: 'x',
  extend: 'e',
  pick: 'o',
  skip: 'k',
  decline: 'n',
  cancel: 'c',
};
const ACTIONS = new Map(Object.entries(PREFIX).map(([action, p]) => [p, action as ButtonAction]));
const ID_PATTERN = /^[0-9a-z]{1,24}$/;

/** A random id of 10 base-36 characters (about 51 bits): unguessable enough, short enough. */
export function shortId(): string {
  const n = randomBytes(8).readBigUInt64BE() & ((1n << 52n) - 1n);
  return n.toString(36).padStart(10, '0').slice(-10);
}

/** `allow`, `k3x9q2mf` -> `a:k3x9q2mf`. */
export function encodeButton(action: ButtonAction, id: string): string {
  if (!ID_PATTERN.test(id)) throw new Error(`Button ids are 1-24 lowercase letters or digits, got "${id}"`);
  return `${PREFIX[action]}:${id}`;
}

/** The inverse of {@link encodeButton}; undefined for anything the core did not make. */
export function decodeButton(payload: string): ButtonPayload | undefined {
  const match = /^([a-z]):([0-9a-z]{1,24})$/.exec(payload);
  const action = match && ACTIONS.get(match[1] ?? '');
  if (!match || !action) return undefined;
  return { action, id: match[2] ?? '' };
}

/** Allow / Allow for this session / Always allow (admins: a stored rule) / Deny, in one row. */
export function approvalButtons(id: string): Button[][] {
  return [
    [
      { label: 'Allow', payload: encodeButton('allow', id), style: 'primary' },
      { label: 'Allow for this session', payload: encodeButton('allow-session', id) },
      { label: 'Always allow', payload: encodeButton('always', id) },
      { label: 'Deny', payload: encodeButton('deny', id), style: 'danger' },
    ],
  ];
}

/** The Stop button that sits on a streaming reply. */
export function stopButtons(turnId: string): Button[][] {
  return [[{ label: 'Stop', payload: encodeButton('stop', turnId), style: 'danger', stopsReply: true }]];
}
