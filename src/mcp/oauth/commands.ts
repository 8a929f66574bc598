/**
 * `/mcp login` and `/mcp logout` for the running servers: which servers can
 * be signed in to (HTTP ones), the answers people get, and connecting a
 * server once its sign-in is done.
 */
import { describeError } from '../../errors.js';
import type { McpServerConnection } from '../client.js';
import type { McpServerConfig } from '../config.js';
import { type McpOAuth, PUBLIC_URL_VARIABLE } from './login.js';
import { SECRET_KEY_VARIABLE } from './secret-box.js';

/** Why sign-in is unavailable when no {@link McpOAuth} was made: the settings to set. */
export const OAUTH_UNAVAILABLE = `Signing in to MCP servers needs ${SECRET_KEY_VARIABLE} (32 random bytes, e.g. \`openssl rand -base64 32\`), to encrypt the tokens, and ${PUBLIC_URL_VARIABLE} (the address at which a browser reaches SWITCHBOARD_HTTP_PORT) set, then a restart.`;

/** The sign-in commands over the running servers. */
export interface SignInCommands {
  /** The answer to `/mcp login <server>` run in `chat`: a link, or why not. */
  signIn(server: string, chat: string): Promise<string>;
  /** The answer to `/mcp logout <server>`. */
  signOut(server: string): Promise<string>;
}

/** HTTP servers of `servers`, as the OAuth code names them. */
export function oauthServers(servers: readonly McpServerConfig[]): { name: string; url: string }[] {
  return servers.flatMap((s) =>
    s.transport.type === 'http' ? [{ name: s.name, url: s.transport.url }] : [],
  );
}

/** `/mcp login` and `/mcp logout` for `servers`; `oauth` undefined when the settings are missing. */
export function signInCommands(
  oauth: McpOAuth | undefined,
  servers: readonly McpServerConfig[],
  connection: (name: string) => McpServerConnection | undefined,
): SignInCommands {
  const http = oauthServers(servers);
  oauth?.whenSignedIn((name) => connection(name)?.reconnect());
  const find = (name: string) => {
    const server = http.find((s) => s.name === name);
    if (server) return server;
    return servers.some((s) => s.name === name)
      ? `"${name.slice(0, 40)}" is a stdio server: only HTTP servers are signed in to.`
      : `There is no MCP server "${name.slice(0, 40)}". /tools lists them.`;
  };
  return {
    async signIn(name, chat) {
      if (!oauth) return OAUTH_UNAVAILABLE;
      const server = find(name);
      if (typeof server === 'string') return server;
      try {
        const start = await oauth.begin(server, chat);
        if ('signedIn' in start) {
          await connection(name)?.reconnect();
          return `"${name}" lets the bot in without a new sign-in.`;
        }
        return `Open this link to sign the bot in to "${name}"; the chat hears when it is done:\n${start.link}`;
      } catch (err) {
        return `The sign-in to "${name}" could not start: ${describeError(err)}`;
      }
    },
    async signOut(name) {
      if (!oauth) return OAUTH_UNAVAILABLE;
      const server = find(name);
      if (typeof server === 'string') return server;
      const had = await oauth.logout(name);
      return had
        ? `Signed out of "${name}": its tokens are deleted, so the server refuses the bot until /mcp login ${name}.`
        : `The bot was not signed in to "${name}".`;
    },
  };
}
