/**
 * `${VAR}` and `${VAR:-default}` in the MCP server file, as Claude Code
 * expands them. Unlike Claude Code, which passes an unset `${VAR}` through
 * as literal text, an unset variable without a default is reported: a
 * server started with the text `${GITHUB_TOKEN}` as its token fails later
 * and far less clearly.
 */

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The expanded text and the values taken from the environment (defaults excluded). */
export interface Expanded {
  text: string;
  values: string[];
}

/**
 * Replaces every `${VAR}` / `${VAR:-default}` in `text`. A variable that is
 * unset or empty takes its default (as the shell's `:-` does); an unset one
 * with no default is passed to `onMissing` and expands to nothing.
 *
 * @example
 * expandVariables('Bearer ${TOKEN}', { TOKEN: 'abc' }, () => {}).text; // 'Bearer abc'
 */
export function expandVariables(
  text: string,
  env: Record<string, string | undefined>,
  onMissing: (variable: string) => void,
): Expanded {
  const values: string[] = [];
  const out = text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && (value !== '' || fallback === undefined)) {
      if (value !== '') values.push(value);
      return value;
    }
    if (fallback !== undefined) return fallback;
    onMissing(name);
    return '';
  });
  return { text: out, values };
}
