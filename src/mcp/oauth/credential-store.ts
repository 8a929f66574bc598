/**
 * Where MCP sign-ins are kept: one sealed (encrypted) text per server, in
 * the bot-state directory or in PostgreSQL (credential-store-postgres.ts), so every replica signs in to a
 * server with the same tokens. The stores see only sealed text; sealing and
 * opening is {@link SecretBox}'s job (see sign-in-store.ts).
 */
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWrite, errorCode, PRIVATE_DIR_MODE } from '../../store/fs-util.js';

/** Sealed sign-in records by server name. */
export interface McpCredentialStore {
  get(server: string): Promise<string | undefined>;
  set(server: string, sealed: string): Promise<void>;
  delete(server: string): Promise<void>;
}

/** File name of a server's record: its name in hex, so any server name is a safe file name. */
const fileOf = (server: string) => `${Buffer.from(server, 'utf8').toString('hex')}.sealed`;

/** Records as files `<dir>/<hex of server>.sealed` (mode 0600, written atomically). */
export function fileCredentialStore(dir: string): McpCredentialStore {
  // Made on first use: a bot that never signs in gets no empty folder.
  let made: Promise<unknown> | undefined;
  const ready = () => (made ??= mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE }));
  return {
    async get(server) {
      await ready();
      try {
        return (await readFile(join(dir, fileOf(server)), 'utf8')).trim();
      } catch (err) {
        if (errorCode(err) === 'ENOENT') return undefined;
        throw err;
      }
    },
    async set(server, sealed) {
      await ready();
      await atomicWrite(join(dir, fileOf(server)), `${sealed}\n`);
    },
    async delete(server) {
      await ready();
      await unlink(join(dir, fileOf(server))).catch((err: unknown) => {
        if (errorCode(err) !== 'ENOENT') throw err;
      });
    },
  };
}

/** The servers that have a record in a file store (tests and diagnostics). */
export async function fileCredentialServers(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('.sealed'))
    .map((n) => Buffer.from(n.slice(0, -'.sealed'.length), 'hex').toString('utf8'));
}
