/**
 * The tools' sandbox inside a container, under a real engine (podman, where
 * one is installed): with the engine's defaults bubblewrap cannot run, and
 * `SWITCHBOARD_SANDBOX=required` refuses to start naming why; with the two
 * options the README and the Dockerfile document
 * (`--security-opt seccomp=unconfined --security-opt systempaths=unconfined`)
 * it runs, and the bot starts. The container's root is this machine's `/usr`
 * and `/etc` (read-only) with the compiled bot mounted at /app: no image
 * registry is needed. Skipped where podman or runc is not installed.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
const cleanups = useCleanups();
const engine = await run('podman', ['--version']).then(
  () => run('runc', ['--version']).then(() => true),
  () => false,
);
const DOCUMENTED = ['--security-opt', 'seccomp=unconfined', '--security-opt', 'systempaths=unconfined'];

/** A root folder for `podman run --rootfs`: mount points, and the merged-/usr links Debian has. */
async function rootfs(): Promise<{ root: string; data: string }> {
  const dir = await cleanups.tempRoot('container');
  const root = join(dir, 'root');
  const data = join(dir, 'data');
  for (const sub of ['usr', 'etc', 'app', 'tmp', 'proc', 'dev', 'sys', 'run', 'data']) {
    await mkdir(join(root, sub), { recursive: true });
  }
  for (const link of ['bin', 'lib', 'lib64', 'sbin']) await symlink(`usr/${link}`, join(root, link));
  await mkdir(data);
  // The container's user is not this machine's root: let it in.
  await chmod(dir, 0o755);
  await chmod(root, 0o755);
  await chmod(join(root, 'tmp'), 0o1777);
  await chmod(data, 0o1777);
  return { root, data };
}

/** `podman run` of the ready bot as an unprivileged user with `options`; its exit code and output. */
async function startInContainer(options: string[]): Promise<{ code: number; output: string }> {
  const { root, data } = await rootfs();
  const args = [
    'run',
    '--rm',
    // runc: crun refuses this machine's hybrid cgroup hierarchy. Limits below the
    // engine's defaults, which exceed what an unprivileged process may raise here.
    '--runtime',
    'runc',
    '--network',
    'none',
    '--user',
    '65534:65534',
    '--ulimit',
    'nofile=4096:4096',
    '--ulimit',
    'nproc=4096:4096',
    ...options,
    '-v',
    '/usr:/usr:ro',
    '-v',
    '/etc:/etc:ro',
    '-v',
    `${ROOT}:/app:ro`,
    '-v',
    `${data}:/data`,
    '-w',
    '/data',
    ...['-e', 'ANTHROPIC_API_KEY=sk-ant-container-0123456789', '-e', 'SWITCHBOARD_SANDBOX=required'],
    ...[
      '-e',
      'SWITCHBOARD_DATA_DIR=/data/data',
      '-e',
      'SWITCHBOARD_WORKSPACE=/data/workspace',
      '-e',
      'HOME=/data',
    ],
    '--rootfs',
    root,
    '/usr/bin/node',
    '/app/bin/switchboard.mjs',
  ];
  // No input: the terminal chat starts, finds its input closed, and stops with exit 0.
  return run('podman', args, { timeout: 120_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof err.code === 'number' ? err.code : -1,
      output: (err.stdout ?? '') + (err.stderr ?? ''),
    }),
  );
}

describe.skipIf(!engine)('the sandbox in a container (podman)', () => {
  it("refuses under the engine's defaults, naming the cause, and runs with the documented options", async () => {
    const refused = await startInContainer([]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('the sandbox does not work here');
    // Each option alone is not enough: one allows the namespaces' calls, the other a /proc of its own.
    for (const half of [DOCUMENTED.slice(0, 2), DOCUMENTED.slice(2)]) {
      expect((await startInContainer(half)).code).toBe(1);
    }
    const allowed = await startInContainer(DOCUMENTED);
    expect(allowed).toMatchObject({ code: 0 });
    expect(allowed.output).toContain('switchboard console');
  }, 240_000);
});
