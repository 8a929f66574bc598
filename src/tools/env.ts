/**
 * The environment handed to child processes (Bash). The bot's own process
 * holds platform tokens and the model key; a command the model runs must not
 * be able to read them with `env` or `printenv`.
 */

/** Prefixes of variables that belong to the bot itself. */
const BOT_PREFIXES = ['ANTHROPIC_', 'TELEGRAM_', 'SLACK_', 'DISCORD_', 'SWITCHBOARD_'];

/** Name patterns of credentials in general (matched case-insensitively). */
const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /(^|_)TOKENS?($|_)/i,
  /(^|_)SECRETS?($|_)/i,
  /_KEY$/i,
  /(^|_)API_?KEY/i,
  /PASSWORD|PASSWD/i,
  /(^|_)CREDENTIALS?($|_)/i,
  /AUTH_?TOKEN|(^|_)AUTH($|_)|(^|_)PASS($|_)|(^|_)PAT$/i,
  // A DSN (Sentry and the like) embeds its key.
  /(^|_)DSN$/i,
  // DATABASE_URL, PG_URI, REDIS_URL, MONGO_DSN ...: connection strings carry passwords.
  /(DATABASE|(^|_)DB|POSTGRES|(^|_)PG|MYSQL|MARIADB|MONGO|REDIS|AMQP|RABBITMQ)[A-Z0-9_]*_?(URL|URI|DSN)$/i,
];

/** A URL with inline credentials (`scheme://user:password@host`), whatever the variable is called. */
const CREDENTIAL_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;

/** Secrets shorter than this are matched by equality only, so short values do not knock out half the environment. */
const MIN_CONTAINED_SECRET = 8;

function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (BOT_PREFIXES.some((prefix) => upper.startsWith(prefix))) return true;
  return SECRET_NAME_PATTERNS.some((pattern) => pattern.test(name));
}

/**
 * Copies `source` without the bot's secrets: drops `ANTHROPIC_*`,
 * `TELEGRAM_*`, `SLACK_*`, `DISCORD_*`, `SWITCHBOARD_*`, anything named like
 * a token, secret, key, password or credential, database connection URLs,
 * URLs with an inline password, and every variable whose value equals one of
 * `extraSecrets` (or contains one of at least 8 characters). Ordinary
 * variables such as `PATH`, `HOME`, `LANG` and `TERM` are kept.
 *
 * @example
 * const env = scrubbedEnv(process.env, [config.telegramToken]);
 */
export function scrubbedEnv(
  source: NodeJS.ProcessEnv = process.env,
  extraSecrets: readonly string[] = [],
): Record<string, string> {
  const secrets = extraSecrets.filter((secret) => secret.length > 0);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isSecretName(name) || CREDENTIAL_URL.test(value)) continue;
    const leaks = secrets.some(
      (secret) => value === secret || (secret.length >= MIN_CONTAINED_SECRET && value.includes(secret)),
    );
    if (!leaks) out[name] = value;
  }
  return out;
}
