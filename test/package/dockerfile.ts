/**
 * Runs a Dockerfile's own instructions, in order, without a container
 * engine: each stage gets a scratch root folder, COPY copies into it, and each
 * RUN line's text runs under `/bin/sh -c` in bubblewrap with that folder as
 * `/`. The base image (`node:20-bookworm-slim`) is stood in for by this
 * machine's Debian bookworm `/usr` and `/etc` (read-only) and the base image's
 * `node` user (uid 1000); what the base image's package manager would add
 * (`apt-get install`) must already be installed here, which {@link aptPackages}
 * lets a test check. Nothing else is interpreted: the RUN text is executed as
 * written.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One instruction: its keyword and the rest of its (joined) line. */
export interface Instruction {
  keyword: string;
  args: string;
}

/** One stage: its name (`AS name`) or index, and its instructions after FROM. */
export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** The base image's user `node`, as node's official images create it. */
const NODE_USER = { uid: 1000, gid: 1000 };

/** Splits a Dockerfile into stages (comments dropped, `\` continuations joined). */
export function parseDockerfile(text: string): Stage[] {
  const lines = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^\s*(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [from = '', , name] = args.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), from, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args: args.trim() });
    }
  }
  return stages;
}

/** The packages `apt-get install` lines of a stage name. */
export function aptPackages(stage: Stage): string[] {
  return stage.instructions
    .filter((i) => i.keyword === 'RUN')
    .flatMap((i) => [...i.args.matchAll(/apt-get install ([^&;]+)/g)])
    .flatMap((m) => (m[1] ?? '').split(/\s+/).filter((word) => word && !word.startsWith('-')));
}

/** A stage that has been run: its root folder, working directory, environment and user. */
export interface BuiltStage {
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  /** The CMD's exec form. */
  cmd: string[];
  /** The HEALTHCHECK's command (shell form), if any. */
  healthcheck?: string | undefined;
}

/** `KEY=value KEY2="value two"` (the ENV form the Dockerfile uses). */
function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of args.matchAll(/(\w+)=("([^"]*)"|\S*)/g)) env[m[1] ?? ''] = m[3] ?? m[2] ?? '';
  return env;
}

/** bubblewrap arguments that make `root` the `/` of a Debian bookworm with node. */
function rootArgs(root: string, workdir: string): string[] {
  const etc = join(root, '..', `${posix.basename(root)}-etc`);
  if (!existsSync(etc)) {
    mkdirSync(etc, { recursive: true });
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const group = readFileSync('/etc/group', 'utf8');
    writeFileSync(
      join(etc, 'passwd'),
      `${passwd}node:x:${NODE_USER.uid}:${NODE_USER.gid}::/home/node:/bin/sh\n`,
    );
    writeFileSync(join(etc, 'group'), `${group}node:x:${NODE_USER.gid}:\n`);
  }
  for (const [link, target] of [
    ['bin', 'usr/bin'],
    ['lib', 'usr/lib'],
    ['lib64', 'usr/lib64'],
    ['sbin', 'usr/sbin'],
  ] as const) {
    if (!lstatSync(join(root, link), { throwIfNoEntry: false })) symlinkSync(target, join(root, link));
  }
  const cache = process.env.npm_config_cache ?? join(homedir(), '.npm');
  mkdirSync(cache, { recursive: true });
  // biome-ignore format: flag and value pairs read better one pair per line
  return [
    '--bind', root, '/',
    '--ro-bind', '/usr', '/usr',
    '--ro-bind', '/etc', '/etc',
    '--ro-bind', join(etc, 'passwd'), '/etc/passwd',
    '--ro-bind', join(etc, 'group'), '/etc/group',
    '--dev', '/dev',
    '--proc', '/proc',
    '--perms', '1777', '--tmpfs', '/tmp',
    // The base image's npm cache, shared with this machine's so a rerun needs no download.
    '--bind', cache, '/root/.npm',
    '--chdir', workdir,
    '--die-with-parent',
  ];
}

/** `env` as bubblewrap `--setenv` pairs, after `--clearenv`. */
function envArgs(env: Record<string, string>): string[] {
  return ['--clearenv', ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v])];
}

/**
 * Added to RUN lines' environment only, as a build machine's own npm
 * settings would be: use the packages already in npm's cache (shared with
 * this machine's, see rootArgs) without asking the registry again.
 */
const BUILD_ENV = { npm_config_prefer_offline: 'true' };

/** The environment every base image starts with. */
const BASE_ENV = { PATH: '/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root' };

/**
 * Runs `stages` (all of them, in order) under `scratch`, taking COPY sources
 * from `context`. `skipRun` decides which RUN lines are left out (the base
 * image's package manager); every other line runs as written. Returns the
 * last stage, ready to start its CMD with {@link startCmd}.
 */
export async function buildStages(
  stages: Stage[],
  context: string,
  scratch: string,
  skipRun: (text: string) => boolean,
): Promise<BuiltStage> {
  const built = new Map<string, BuiltStage>();
  let last: BuiltStage | undefined;
  for (const stage of stages) {
    const root = join(scratch, `stage-${stage.name}`);
    mkdirSync(root, { recursive: true });
    const state: BuiltStage = { root, workdir: '/', env: { ...BASE_ENV }, cmd: [] };
    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'WORKDIR') {
        state.workdir = posix.resolve(state.workdir, args);
        mkdirSync(join(root, state.workdir), { recursive: true });
      } else if (keyword === 'ENV') {
        Object.assign(state.env, parseEnv(args));
      } else if (keyword === 'USER') {
        state.user = args;
      } else if (keyword === 'COPY') {
        const words = args.split(/\s+/);
        const fromStage = words[0]?.startsWith('--from=')
          ? words.shift()?.slice('--from='.length)
          : undefined;
        const dest = words.pop() ?? '';
        const source = fromStage === undefined ? context : built.get(fromStage)?.root;
        if (!source) throw new Error(`COPY --from=${fromStage}: no such stage`);
        const target = join(root, posix.resolve(state.workdir, dest));
        for (const word of words) {
          const from = join(source, word);
          const to = dest.endsWith('/') ? join(target, posix.basename(word)) : target;
          mkdirSync(dirname(to), { recursive: true });
          cpSync(from, to, { recursive: true });
        }
      } else if (keyword === 'RUN') {
        if (skipRun(args)) continue;
        await run(
          'bwrap',
          [
            ...rootArgs(root, state.workdir),
            ...envArgs({ ...state.env, ...BUILD_ENV }),
            '/bin/sh',
            '-c',
            args,
          ],
          {
            maxBuffer: 64 << 20,
          },
        ).catch((err: { stderr?: string; message: string }) => {
          throw new Error(`RUN ${args}\nfailed: ${err.stderr ?? err.message}`);
        });
      } else if (keyword === 'CMD') {
        state.cmd = JSON.parse(args) as string[];
      } else if (keyword === 'HEALTHCHECK') {
        state.healthcheck = /\bCMD (.*)$/.exec(args)?.[1];
      }
    }
    built.set(stage.name, state);
    last = state;
  }
  if (!last) throw new Error('the Dockerfile has no stage');
  return last;
}

/**
 * Starts the stage's CMD in its root, as its USER (the base image's `node`),
 * with its ENV overlaid by `env`. Shares this machine's network, as
 * `docker run --network host` would.
 */
export function startCmd(stage: BuiltStage, env: Record<string, string>): ChildProcess {
  const user = stage.user === 'node' ? NODE_USER : undefined;
  if (stage.user && !user) throw new Error(`USER ${stage.user}: only the base image's node user is known`);
  const asUser = user ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'] : [];
  return spawn(
    'bwrap',
    [...rootArgs(stage.root, stage.workdir), ...envArgs({ ...stage.env, ...env }), ...asUser, ...stage.cmd],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** Runs the stage's HEALTHCHECK command in its root; resolves true when it exits 0. */
export function probeHealth(stage: BuiltStage, env: Record<string, string>): Promise<boolean> {
  if (!stage.healthcheck) throw new Error('the stage has no HEALTHCHECK');
  return run('bwrap', [
    ...rootArgs(stage.root, stage.workdir),
    ...envArgs({ ...stage.env, ...env }),
    '/bin/sh',
    '-c',
    stage.healthcheck,
  ]).then(
    () => true,
    () => false,
  );
}
