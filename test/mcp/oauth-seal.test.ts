/**
 * The sealing of MCP sign-ins (AES-256-GCM): what one key seals only that key
 * opens, an altered record is refused rather than misread, and a key that is
 * not 32 bytes is refused with how to make one.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { fileCredentialStore } from '../../src/mcp/oauth/credential-store.js';
import { createSecretBox, parseSecretKey } from '../../src/mcp/oauth/secret-box.js';
import { McpSignIns } from '../../src/mcp/oauth/sign-ins.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

describe('sealed MCP sign-ins', () => {
  it('treats a record sealed under another key as no sign-in, which a new login replaces', async () => {
    const dir = await cleanups.tempRoot('oauth-seal');
    const store = fileCredentialStore(dir);
    const tokens = { access_token: 'tok-old', token_type: 'bearer' };
    await new McpSignIns(store, createSecretBox(randomBytes(32))).update('remote', (r) => ({ ...r, tokens }));
    const rotated = new McpSignIns(store, createSecretBox(randomBytes(32)));
    expect(await rotated.read('remote')).toEqual({});
    await rotated.update('remote', (r) => ({ ...r, tokens: { ...tokens, access_token: 'tok-new' } }));
    expect((await rotated.read('remote')).tokens?.access_token).toBe('tok-new');
  });

  it('opens with its key only, and refuses an altered record', () => {
    const key = randomBytes(32);
    const box = createSecretBox(key);
    const sealed = box.seal('{"access_token":"tok-123"}');
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('tok-123');
    expect(box.seal('{"access_token":"tok-123"}')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('{"access_token":"tok-123"}');
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow(/sign in again with \/mcp login/);
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes.writeUInt8((bytes.at(-1) as number) ^ 1, bytes.length - 1);
    expect(() => box.open(`v1:${bytes.toString('base64')}`)).toThrow(/altered/);
    expect(() => box.open('plain text')).toThrow(/not in a format/);
  });

  it('reads a key in base64 or hex and refuses one of another length', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(() => parseSecretKey('short')).toThrow(/openssl rand -base64 32/);
    expect(() =>
      loadConfig({
        env: { ANTHROPIC_API_KEY: 'sk-ant-test', SWITCHBOARD_SECRET_KEY: 'short' },
        argv: [],
        cwd: '/tmp',
      }),
    ).toThrow(/SWITCHBOARD_SECRET_KEY expected 32 random bytes/);
  });
});
