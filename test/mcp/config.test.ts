// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` is the MCP file's own syntax, expanded by the bot.
/**
 * SWITCHBOARD_MCP_CONFIG: a `.mcp.json`-style file read by loadConfig,
 * with `${VAR}` expansion; every problem stops start-up naming its server.
 * The last test runs the real entry point, as `npm start` does, and expects
 * exit 2.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { isErrorCode } from '../../src/errors.js';
import { BUILT_MAIN } from '../helpers/dist.js';

const KEY = 'sk-ant-mcp-config-key-0123456789';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchboard-mcp-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `content` (an object is written as JSON) and loads the config pointing at it. */
async function load(content: unknown, env: Record<string, string> = {}) {
  const file = join(dir, '.mcp.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return loadConfig({ env: { ANTHROPIC_API_KEY: KEY, SWITCHBOARD_MCP_CONFIG: file, ...env }, cwd: dir });
}

async function problem(content: unknown, env: Record<string, string> = {}): Promise<string> {
  try {
    await load(content, env);
  } catch (err) {
    if (!isErrorCode(err, 'CONFIG_INVALID')) throw err;
    expect(err.detail.variables).toEqual(['SWITCHBOARD_MCP_CONFIG']);
    return err.message;
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('SWITCHBOARD_MCP_CONFIG', () => {
  it('reads stdio and http servers in the .mcp.json shape, expanding ${VAR} and ${VAR:-default}', async () => {
    const config = await load(
      {
        mcpServers: {
          github: {
            command: 'npx',
            args: ['-y', 'github-mcp', '--org=${ORG:-acme}'],
            env: { GITHUB_TOKEN: '${GH_TOKEN}' },
            permission: 'execute',
            toolPermissions: { search: 'inspect' },
          },
          tracker: {
            type: 'http',
            url: 'https://${TRACKER_HOST}/mcp',
            headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' },
            somethingClaudeCodeIgnores: true,
          },
        },
      },
      {
        GH_TOKEN: 'ghp_secret_0123456789',
        TRACKER_HOST: 'tracker.internal',
        TRACKER_TOKEN: 'trk_0123456789',
      },
    );
    expect(config.mcp?.servers).toEqual([
      {
        name: 'github',
        permission: 'execute',
        toolPermissions: { search: 'inspect' },
        transport: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', 'github-mcp', '--org=acme'],
          env: { GITHUB_TOKEN: 'ghp_secret_0123456789' },
          cwd: dir,
        },
      },
      {
        name: 'tracker',
        toolPermissions: {},
        transport: {
          type: 'http',
          url: 'https://tracker.internal/mcp',
          headers: { Authorization: 'Bearer trk_0123456789' },
        },
      },
    ]);
    // Expanded credentials are scrubbed from logs and from the tools' environment like the bot's own.
    expect(config.secrets).toEqual(expect.arrayContaining(['ghp_secret_0123456789', 'trk_0123456789']));
  });

  it('counts a value expanded into args as a secret, and reads SWITCHBOARD_MCP_TIMEOUT in seconds', async () => {
    const server = { command: 'srv', args: ['--token=${ARG_TOKEN}'] };
    const config = await load(
      { mcpServers: { srv: server } },
      { ARG_TOKEN: 'arg_secret_0123456789', SWITCHBOARD_MCP_TIMEOUT: '5' },
    );
    expect(config.secrets).toContain('arg_secret_0123456789');
    expect(config.mcp?.callTimeoutMs).toBe(5_000);
    expect((await load({ mcpServers: { srv: server } }, { ARG_TOKEN: 'x' })).mcp?.callTimeoutMs).toBe(30_000);
  });

  it.each([
    ['an unreadable file', undefined, /cannot be read \(there is no such file\)/],
    ['bad JSON', '{"mcpServers": {', /is not valid JSON/],
    ['no mcpServers object', { servers: {} }, /needs an "mcpServers" object/],
    [
      'an unknown type',
      { mcpServers: { old: { type: 'sse', url: 'https://x' } } },
      /server "old": unknown type "sse"/,
    ],
    [
      'a stdio server without command',
      { mcpServers: { fs: { args: ['x'] } } },
      /server "fs": command is missing/,
    ],
    ['an http server without url', { mcpServers: { api: { type: 'http' } } }, /server "api": url is missing/],
    [
      'an undefined variable',
      { mcpServers: { gh: { command: 'gh-mcp', env: { TOKEN: '${NOT_SET_ANYWHERE}' } } } },
      /server "gh": env\.TOKEN uses \$\{NOT_SET_ANYWHERE\}, which is not set in the environment/,
    ],
    [
      'a name that cannot form a tool name',
      { mcpServers: { 'my server!': { command: 'x' } } },
      /server "my server!": the name must be 1-40 letters, digits/,
    ],
    [
      'a bad permission',
      { mcpServers: { gh: { command: 'x', permission: 'always' } } },
      /server "gh": permission expected "inspect"/,
    ],
    [
      "the bot's own API key handed to a server",
      { mcpServers: { gh: { command: 'x', env: { KEY: '${ANTHROPIC_API_KEY}' } } } },
      /server "gh": env\.KEY holds one of the bot's own credentials/,
    ],
  ])('stops start-up on %s, naming the server and the problem', async (_what, content, expected) => {
    const message =
      content === undefined
        ? await (async () => {
            try {
              loadConfig({
                env: { ANTHROPIC_API_KEY: KEY, SWITCHBOARD_MCP_CONFIG: join(dir, 'missing.json') },
                cwd: dir,
              });
            } catch (err) {
              return (err as Error).message;
            }
            return '';
          })()
        : await problem(content);
    expect(message).toMatch(/^Invalid configuration:\n {2}SWITCHBOARD_MCP_CONFIG/);
    expect(message).toMatch(expected);
    expect(message).not.toContain(KEY);
  });

  it('npm start exits 2 on a bad file, naming the server', async () => {
    await writeFile(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { tracker: { type: 'http' } } }));
    const child = spawn(process.execPath, [BUILT_MAIN], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ANTHROPIC_API_KEY: KEY,
        SWITCHBOARD_MCP_CONFIG: 'mcp.json',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    expect(code).toBe(2);
    expect(stderr).toMatch(/SWITCHBOARD_MCP_CONFIG \(.*mcp\.json\): server "tracker": url is missing/);
    expect(stderr).toMatch(/\.env\.example/);
  });
});
