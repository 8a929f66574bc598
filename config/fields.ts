/**
 * The kinds of value an environment variable holds, as zod fields: the core
 * schema and every platform module's settings fragment build their variables
 * from these, so a bad value reads the same whichever part declared it. Each
 * treats an empty or blank value as unset (a `.env` line `NAME=`).
 */
import { z } from 'zod';

/** A trimmed string; empty is unset. */
export const optionalString = z
  .string()
  .trim()
  .transform((s) => (s === '' ? undefined : s))
  .optional();

/** An http(s) URL, or unset; `what` says what it points at in the message. */
export const url = (what: string) =>
  optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), {
    message: `expected an http(s) URL (${what})`,
  });

/** A duration in seconds (up to `max`), as milliseconds; `fallback` seconds when unset. */
export const seconds = (fallback: number, max: number) =>
  optionalString
    .refine((v) => v === undefined || (/^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) <= max), {
      message: `expected a number of seconds between 1 and ${max}`,
    })
    .transform((v) => Math.round((v === undefined ? fallback : Number(v)) * 1000));

/** A TCP port; `fallback` when unset. */
export const port = (fallback: number) =>
  optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 0 && Number(v) <= 65535), {
      message: 'expected a port number (0-65535)',
    })
    .transform((v) => (v === undefined ? fallback : Number(v)));

/** A token count between `min` and `max`, or undefined when unset. */
export const tokens = (min: number, max: number) =>
  optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max), {
      message: `expected a whole number of tokens between ${min.toLocaleString('en-US')} and ${max.toLocaleString('en-US')}`,
    })
    .transform((v) => (v === undefined ? undefined : Number(v)));

/** A boolean that is false unless set to true. */
export const bool = optionalString
  .refine((v) => v === undefined || /^(true|false|1|0|yes|no)$/i.test(v), {
    message: 'expected true or false',
  })
  .transform((v) => v !== undefined && /^(true|1|yes)$/i.test(v));

/** A boolean that is true unless set to false. */
export const boolDefaultTrue = optionalString
  .refine((v) => v === undefined || /^(true|false|1|0|yes|no)$/i.test(v), {
    message: 'expected true or false',
  })
  .transform((v) => v === undefined || /^(true|1|yes)$/i.test(v));

/** An on/off switch; `fallback` when unset. */
export const onOff = (fallback: boolean) =>
  optionalString
    .refine((v) => v === undefined || /^(on|off)$/i.test(v), { message: 'expected on or off' })
    .transform((v) => (v === undefined ? fallback : v.toLowerCase() === 'on'));
