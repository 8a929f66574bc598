/**
 * People in the settings (SWITCHBOARD_ALLOWED_USERS, _ADMINS, _APPROVERS,
 * _LINKED_USERS) are `platform:userId` keys. Which platforms exist and how
 * their user ids look comes from the platform modules, so a new platform's
 * people can be allowed the day it is added, and a typo ("telgram:1", a
 * Slack name instead of its id) stops start-up instead of locking someone out.
 */
import { PLATFORMS } from '../adapters/platforms.js';
import { optionalString } from './fields.js';

/** Whether `key` is `<a platform's id>:<an id of that platform's shape>`. */
export function isUserKey(key: string): boolean {
  const at = key.indexOf(':');
  const platform = PLATFORMS.find((p) => p.id === key.slice(0, at));
  return platform?.userId.test(key.slice(at + 1)) ?? false;
}

/** Each platform's example key (`telegram:123456`), for messages. */
const examples = PLATFORMS.map((p) => `${p.id}:${p.exampleUserId}`);

/** A comma-separated list of user keys; unset is none. */
export const userList = optionalString
  .refine((v) => v === undefined || v.split(',').every((u) => isUserKey(u.trim())), {
    message: `expected comma-separated platform:userId entries (platform one of ${PLATFORMS.map((p) => p.id).join(', ')}), e.g. ${examples.slice(0, 2).join(',')} (ids look like ${examples.join(', ')})`,
  })
  .transform((v) => (v === undefined ? [] : v.split(',').map((u) => u.trim())));

/** People with ids on several platforms: `alice=telegram:1,slack:U1;bob=...`. */
export const linkedUsers = optionalString
  .refine(
    (v) =>
      v === undefined ||
      v.split(';').every((entry) => {
        const [name, ids] = entry.split('=');
        return (
          !!name &&
          /^[A-Za-z0-9_.-]{1,64}$/.test(name.trim()) &&
          !!ids &&
          ids.split(',').every((u) => isUserKey(u.trim()))
        );
      }),
    {
      message: `expected name=platform:id,platform:id;name2=... e.g. alice=${examples.slice(0, 2).join(',')}`,
    },
  )
  .transform((v) => {
    const out: Record<string, string[]> = {};
    if (v === undefined) return out;
    for (const entry of v.split(';')) {
      const [name, ids] = entry.split('=') as [string, string];
      out[name.trim()] = ids.split(',').map((u) => u.trim());
    }
    return out;
  });
