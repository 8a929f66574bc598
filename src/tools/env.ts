/**
 * The environment handed to child processes a tool starts. The bot's own
 * process holds platform tokens and the model key, and its host may hold any
 * other secret under any name (`GPG_PASSPHRASE`, `STRIPE_SK`): a command the
 * model runs sees an allowlist, never a scrubbed copy of everything.
 */

/** Variables a shell needs; nothing else passes. */
const ALLOWED = new Set([
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
]);

/** A URL with inline credentials (`scheme://user:password@host`), whatever the variable is called. */
const CREDENTIAL_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;

/** Secrets shorter than this are matched by equality only, so short values do not knock out half the environment. */
const MIN_CONTAINED_SECRET = 8;

/** True for the variables {@link scrubbedEnv} lets through: the shell basics and the locale (`LC_*`). */
export function isAllowedEnvName(name: string): boolean {
  return ALLOWED.has(name) || /^LC_[A-Z]+$/.test(name);
}

/**
 * Copies from `source` only `PATH`, `HOME`, `LANG`, `LANGUAGE`, `LC_*`,
 * `TZ`, `TERM`, `USER`, `LOGNAME`, `SHELL` and `TMPDIR`, and of those drops
 * any whose value is a URL with an inline password, equals one of
 * `extraSecrets` or contains one of at least 8 characters. (The built-in
 * tools run in the sandbox, whose environment is fixed: see sandboxEnv.)
 *
 * @example
 * const env = scrubbedEnv(process.env, [config.telegramToken]);
 */
export function scrubbedEnv(
  source: NodeJS.ProcessEnv = process.env,
  extraSecrets: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || !isAllowedEnvName(name) || CREDENTIAL_URL.test(value)) continue;
    if (!holdsSecret(value, extraSecrets)) out[name] = value;
  }
  return out;
}

/**
 * True when `value` equals one of `secrets` or contains one of at least 8
 * characters: the one rule for "this hands out a credential", in a child's
 * environment as in an MCP server's settings.
 *
 * @example
 * holdsSecret('Bearer sk-ant-0123456789', ['sk-ant-0123456789']); // true
 */
export function holdsSecret(value: string, secrets: readonly string[]): boolean {
  return secrets.some(
    (secret) =>
      secret.length > 0 &&
      (value === secret || (secret.length >= MIN_CONTAINED_SECRET && value.includes(secret))),
  );
}
