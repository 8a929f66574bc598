/**
 * Who a message notifies, as Discord decides it: `<@id>` / `<@!id>` a user,
 * `<@&id>` a role, `@everyone` and `@here` everyone, each only when the
 * message's `allowed_mentions.parse` lists its kind (`users`, `roles`,
 * `everyone`); without `allowed_mentions` every kind is parsed
 * (discord.com/developers/docs/resources/message#allowed-mentions-object).
 * A backslash before the mention makes it text (Markdown escape), and so does
 * anything between `@` and the word (`@\u200beveryone` is not `@everyone`).
 */

/** The `allowed_mentions` field of a create or edit body. */
export interface AllowedMentionsBody {
  parse?: string[];
}

/** `user:<id>`, `role:<id>` or `everyone` for each mention that notifies, in order. */
export function discordPings(content: string, allowed: AllowedMentionsBody | undefined): string[] {
  const parse = new Set(allowed?.parse ?? ['users', 'roles', 'everyone']);
  const pings: string[] = [];
  for (const m of content.matchAll(/(\\?)(?:<@(!?|&)(\d+)>|@(everyone|here)\b)/g)) {
    if (m[1]) continue;
    if (m[4]) {
      if (parse.has('everyone')) pings.push('everyone');
    } else if (m[2] === '&') {
      if (parse.has('roles')) pings.push(`role:${m[3]}`);
    } else if (parse.has('users')) pings.push(`user:${m[3]}`);
  }
  return pings;
}
