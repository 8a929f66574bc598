/**
 * The ready bot's layout on disk, for the sandbox tests: `.env` with the
 * tokens, the data directory with the sessions, a shared workspace with one
 * folder per chat, and a secret outside all of it. Sessions run on the fake
 * Messages API, which asks for the tool calls; the tool results it records
 * are what the model saw.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Sandbox, type SandboxSettings } from '../../src/sandbox/index.js';
import type { InteractiveSession, InteractiveSessionOptions } from '../../src/session/index.js';
import { createUserSessionStore } from '../../src/store/index.js';
import { type FakeAnthropic, toolResults } from '../fakes/anthropic.js';
import { newSession, useSessionFixture } from '../session/helpers.js';

/** Values that must never reach the model. */
export const SECRETS = {
  token: '123456:planted-telegram-token-9f8e7d',
  apiKey: 'sk-ant-planted-key-0a1b2c3d',
  other: 'planted-other-chat-secret-44aa',
  data: 'planted-session-data-77bb',
  outside: 'planted-outside-file-5c5c',
  env: 'planted-process-env-3e3e',
};

/** Paths of one test's world (all real paths). */
export interface World {
  root: string;
  dataDir: string;
  envFile: string;
  /** The shared workspace; chats get `a` and `b` under it. */
  workspace: string;
  chatA: string;
  chatB: string;
  outside: string;
}

async function makeWorld(): Promise<World> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'sb-sandbox-')));
  const w: World = {
    root,
    dataDir: join(root, 'data'),
    envFile: join(root, '.env'),
    workspace: join(root, 'workspace'),
    chatA: join(root, 'workspace', 'a'),
    chatB: join(root, 'workspace', 'b'),
    outside: join(root, 'outside'),
  };
  await mkdir(join(w.dataDir, 'sessions'), { recursive: true });
  await mkdir(w.chatA, { recursive: true });
  await mkdir(w.chatB, { recursive: true });
  await mkdir(w.outside, { recursive: true });
  await writeFile(w.envFile, `TELEGRAM_BOT_TOKEN=${SECRETS.token}\nANTHROPIC_API_KEY=${SECRETS.apiKey}\n`);
  await writeFile(join(w.chatB, 'notes.txt'), `${SECRETS.other}\n`);
  await writeFile(join(w.dataDir, 'sessions', 'planted.json'), `{"secret":"${SECRETS.data}"}\n`);
  await writeFile(join(w.outside, 'secret.txt'), `${SECRETS.outside}\n`);
  return w;
}

/**
 * The fixture: the session tests' one (fake Messages API per file, sessions
 * closed after each test) plus a fresh world per test, removed after them.
 */
export function useSandboxWorld() {
  let world: World | undefined;
  // Registered before the session fixture, so its sessions close before the world goes.
  beforeEach(async () => {
    world = await makeWorld();
    process.env.SWITCHBOARD_TEST_PLANTED_SECRET = SECRETS.env;
  });
  afterEach(async () => {
    delete process.env.SWITCHBOARD_TEST_PLANTED_SECRET;
    if (world) await rm(world.root, { recursive: true, force: true });
  });
  const base = useSessionFixture();
  const fx = {
    get fake(): FakeAnthropic {
      return base.fake;
    },
    get world(): World {
      if (!world) throw new Error('the world exists only inside a test');
      return world;
    },
    /** The bot's sandbox for this world: the data directory and .env hidden. */
    sandbox(settings: SandboxSettings = {}): Sandbox {
      return new Sandbox({ hidden: [fx.world.dataDir, fx.world.envFile], ...settings });
    },
    /** A session of chat `a` (bypassPermissions: an admin switched it), stored in the data directory. */
    session(options: Partial<InteractiveSessionOptions> = {}): InteractiveSession {
      return base.track(
        newSession(fx.fake, options.cwd ?? fx.world.chatA, {
          permissionMode: 'bypassPermissions',
          sessionStore: createUserSessionStore(join(fx.world.dataDir, 'sessions')),
          sandbox: fx.sandbox(),
          toolEnv: process.env,
          ...options,
        }),
      );
    },
    /** Runs one turn in which the model calls `calls` (in order), then answers "done". */
    async turn(session: InteractiveSession, calls: Array<{ name: string; input: Record<string, unknown> }>) {
      fx.fake.enqueue({ toolUse: calls }, { text: 'done' });
      const { completed } = await session.submit('go');
      await completed;
      return toolResults(fx.fake.requests).slice(-calls.length);
    },
  };
  return fx;
}

/** Every planted secret value, to check that none appears in `text`. */
export function leaked(text: string): string[] {
  return Object.values(SECRETS).filter((secret) => text.includes(secret));
}
