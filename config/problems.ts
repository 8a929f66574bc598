/**
 * What is wrong with a configuration, said so that the operator can fix it:
 * the core's cross-checks (the platforms' are in their modules), and the
 * one error that lists every problem at once.
 */
import { SwitchboardError } from '../src/errors.js';
import { isPlatformSecret } from './platform-settings.js';
import type { ParsedEnv } from './schema.js';
import type { ConfigProblem } from './types.js';

/** The core's problems that no single value shows: a setting needed with another, two that exclude each other. */
export function crossChecks(e: ParsedEnv): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const need = (cond: boolean, variable: string, message: string) => {
    if (cond) out.push({ path: [variable], message });
  };
  need(
    !!e.SWITCHBOARD_TRANSCRIBE_URL && !e.SWITCHBOARD_TRANSCRIBE_MODEL,
    'SWITCHBOARD_TRANSCRIBE_MODEL',
    'is needed with SWITCHBOARD_TRANSCRIBE_URL: the model to ask for, e.g. gpt-4o-mini-transcribe or whisper-1',
  );
  need(
    !e.SWITCHBOARD_TRANSCRIBE_URL && (!!e.SWITCHBOARD_TRANSCRIBE_MODEL || !!e.SWITCHBOARD_TRANSCRIBE_KEY),
    'SWITCHBOARD_TRANSCRIBE_URL',
    'is not set, but other SWITCHBOARD_TRANSCRIBE_ variables are: set the endpoint, e.g. https://api.openai.com/v1/audio/transcriptions',
  );
  // Web search tool page: allowed_domains and blocked_domains cannot be used in the same request.
  need(
    e.SWITCHBOARD_WEB_ALLOWED_DOMAINS.length > 0 && e.SWITCHBOARD_WEB_BLOCKED_DOMAINS.length > 0,
    'SWITCHBOARD_WEB_BLOCKED_DOMAINS',
    'cannot be set together with SWITCHBOARD_WEB_ALLOWED_DOMAINS (the API takes one list or the other): keep one',
  );
  return out;
}

const SECRET_NAME = /TOKEN|SECRET|KEY|DATABASE_URL/;

/**
 * The error for every problem found, one line each: the variable, what is
 * wrong, and the value given unless it is a secret's.
 */
export function configError(
  issues: ReadonlyArray<ConfigProblem>,
  env: Record<string, string | undefined>,
): SwitchboardError {
  const lines = issues.map((i) => {
    const variable = String(i.path[0] ?? 'config');
    const value = env[variable];
    // Echo what was given, so a typo is visible at once; never echo a secret.
    const secret = SECRET_NAME.test(variable) || isPlatformSecret(variable);
    const got = value && !secret ? ` (got "${value.slice(0, 60)}")` : '';
    return `${variable} ${i.message}${got}`;
  });
  const variables = issues.map((i) => String(i.path[0] ?? 'config'));
  return new SwitchboardError('CONFIG_INVALID', `Invalid configuration:\n  ${lines.join('\n  ')}`, {
    detail: { variables },
  });
}
