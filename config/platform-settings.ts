/**
 * Which platforms run, from the platform modules: each module reads its own
 * variables and says whether it is configured; the fallback module (the
 * terminal chat) runs when none is, or when `--<its id>` asks for it
 * alongside the others.
 */
import { PLATFORMS } from '../adapters/platforms.js';
import type { ParsedEnv } from './schema.js';
import type { ConfigProblem } from './types.js';

/**
 * The settings of every platform that runs, by id, and the problems the
 * modules' cross-checks found (each module reports its own, whether or not
 * it ends up configured).
 */
export function platformSettings(
  e: ParsedEnv,
  argv: readonly string[],
): { platforms: Record<string, unknown>; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const report = (variable: string, message: string) => problems.push({ path: [variable], message });
  const platforms: Record<string, unknown> = {};
  for (const platform of PLATFORMS.filter((p) => !p.fallback)) {
    const settings = platform.settings(e, report);
    if (settings !== undefined) platforms[platform.id] = settings;
  }
  const noneConfigured = Object.keys(platforms).length === 0;
  for (const platform of PLATFORMS.filter((p) => p.fallback)) {
    if (!noneConfigured && !argv.includes(`--${platform.id}`)) continue;
    const settings = platform.settings(e, report);
    if (settings !== undefined) platforms[platform.id] = settings;
  }
  return { platforms, problems };
}

/** The values of every platform's secret variables that are set, for scrubbing logs. */
export function platformSecrets(e: ParsedEnv): string[] {
  return PLATFORMS.flatMap((p) => p.secrets.map((name) => e[name])).filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}

/** Whether `variable` holds a secret of a platform (its value is never echoed). */
export function isPlatformSecret(variable: string): boolean {
  return PLATFORMS.some((p) => p.secrets.includes(variable));
}
