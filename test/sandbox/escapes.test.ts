/**
 * The escapes an adversarial review used against the sandbox, run as one
 * Bash call each, with the bot's side (the Sandbox) running as root and as
 * an unprivileged user: escape-probe.ts, bundled with esbuild into a file
 * anyone can read (the checkout may not be), is started as a child process
 * with spawn's `uid`/`gid` (nobody) when the runner is root, as CI's is. What
 * each call printed must hold nothing of the host, and the host must be
 * unchanged.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARCHES } from '../../src/sandbox/seccomp.js';

const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const MARK = `sb-planted-${process.pid}`;
const SECRET = `planted-env-secret-${process.pid}`;
const DATA_SECRET = `planted-session-${process.pid}`;
const PROBE = fileURLToPath(new URL('./escape-probe.ts', import.meta.url));
/** A project laid out under /usr (the `/usr/src/app` container layout); made only when root. */
const USR_APP = `/usr/local/share/switchboard-test-${process.pid}`;

const arch = ARCHES[process.arch as keyof typeof ARCHES];
/** Each refused call, made through libc's syscall(): `name result errno` per line. */
const SECCOMP_CALLS = [
  'ptrace',
  'pidfd_getfd',
  'keyctl',
  'add_key',
  'bpf',
  'perf_event_open',
  'unshare',
  'setns',
  'mount',
  'umount2',
] as const;
const SECCOMP_PROBE = `python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for name, nr in [${SECCOMP_CALLS.map((name) => `("${name}", ${arch?.numbers[name]})`).join(', ')}]:
    ctypes.set_errno(0)
    r = libc.syscall(nr, 0, 0, 0, 0, 0)
    print(name, r, ctypes.get_errno())
'`;

const COMMANDS: Record<string, string> = {
  caps: 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb)" /proc/self/status; grep -E "^(Seccomp|NoNewPrivs)" /proc/self/status',
  shadow: 'umount /etc/shadow; echo umount=$?; cat /etc/shadow; echo cat=$?',
  remountEtc: `mount -o remount,rw,bind /etc; echo remount=$?; echo x > /etc/${MARK}; echo write=$?`,
  remountUsr: `mount -o remount,rw,bind /usr; echo remount=$?; touch /usr/local/${MARK} /usr/local/sbin/${MARK}; echo write=$?`,
  nested:
    'unshare -Urn id; echo userns=$?; unshare -m true; echo mountns=$?; unshare -p -f true; echo pidns=$?',
  dotEnv: 'umount "$PWD/.env"; cat .env; umount "$PWD/data"; cat data/*; echo done',
  usrApp: `cat ${USR_APP}/.env; ls ${USR_APP}/data; cat ${USR_APP}/data/*; echo done`,
  processes: 'echo ppid=$PPID; for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done',
  seccomp: SECCOMP_PROBE,
  tmpfs:
    'head -c 16M /dev/zero > /tmp/big; echo tmp=$?; head -c 16M /dev/zero > /dev/shm/big; echo shm=$?; touch /dev/x /x; echo rootfs=$?',
  memory:
    'cat /proc/self/cgroup | grep -c switchboard-sandbox; python3 -c "b = bytearray(200 * 1024 * 1024); print(len(b))"; echo alloc=$?',
  stopParent: 'kill -STOP $PPID; sleep 30',
};

interface Probe {
  uid: number;
  status: { state: string };
  results: Record<string, { text: string; code: number | null; ended?: string; ms: number }>;
  helperReadEnv: { data?: string; error?: string };
}

/** escape-probe.ts and the sources it imports, as one plain ES module in a world-readable folder. */
async function bundleProbe(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-probe-'));
  chmodSync(dir, 0o755);
  const file = join(dir, 'probe.mjs');
  await build({
    entryPoints: [PROBE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: file,
    logLevel: 'error',
  });
  chmodSync(file, 0o644);
  return file;
}

let bundled: Promise<string> | undefined;

function runProbe(workspace: string, uid: number | undefined): Promise<Probe> {
  const spec = {
    workspace,
    hidden: [
      join(workspace, '.env'),
      join(workspace, 'data'),
      ...(ROOT ? [`${USR_APP}/.env`, `${USR_APP}/data`] : []),
    ],
    limits: { memoryBytes: 96 * 1024 * 1024, tmpBytes: 8 * 1024 * 1024 },
    commands: Object.fromEntries(
      Object.entries(COMMANDS).map(([name, command]) => [
        name,
        { command, timeoutMs: name === 'stopParent' ? 1_500 : 20_000 },
      ]),
    ),
  };
  bundled ??= bundleProbe();
  return bundled.then(
    (probe) =>
      new Promise((resolve, reject) => {
        execFile(
          process.execPath,
          [probe, JSON.stringify(spec)],
          {
            cwd: tmpdir(),
            ...(uid === undefined ? {} : { uid, gid: uid }),
            env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: tmpdir(), TMPDIR: tmpdir() },
            maxBuffer: 16 * 1024 * 1024,
          },
          (err, stdout, stderr) => {
            if (err) reject(new Error(`${err.message}\n${stderr}`));
            else resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string));
          },
        );
      }),
  );
}

/** Root's bot and an unprivileged one when the runner is root (CI); the runner's own user otherwise. */
const RUNS: { name: string; uid: number | undefined }[] = ROOT
  ? [
      { name: 'run by root', uid: undefined },
      { name: 'run by an unprivileged user (nobody)', uid: NOBODY },
    ]
  : [{ name: `run by uid ${process.getuid?.()}`, uid: undefined }];

describe.each(RUNS)('the sandbox, $name', ({ uid }) => {
  let workspace = '';
  let probe: Probe;
  const hostShadow = existsSync('/etc/shadow') && ROOT ? readFileSync('/etc/shadow', 'utf8') : '';

  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'sb-escapes-')));
    writeFileSync(join(workspace, '.env'), `TELEGRAM_BOT_TOKEN=${SECRET}\n`);
    mkdirSync(join(workspace, 'data'));
    writeFileSync(join(workspace, 'data', 'session.json'), `{"s":"${DATA_SECRET}"}\n`);
    if (ROOT) {
      mkdirSync(join(USR_APP, 'data'), { recursive: true });
      writeFileSync(join(USR_APP, '.env'), `TELEGRAM_BOT_TOKEN=${SECRET}\n`);
      writeFileSync(join(USR_APP, 'data', 'session.json'), `{"s":"${DATA_SECRET}"}\n`);
      chmodSync(join(USR_APP, '.env'), 0o644);
    }
    if (uid !== undefined) {
      for (const path of [
        workspace,
        join(workspace, '.env'),
        join(workspace, 'data'),
        join(workspace, 'data', 'session.json'),
      ])
        chownSync(path, uid, uid);
    }
    probe = await runProbe(workspace, uid);
  }, 120_000);

  afterAll(async () => {
    rmSync(workspace, { recursive: true, force: true });
    if (bundled) rmSync(join(await bundled, '..'), { recursive: true, force: true });
    bundled = undefined;
    if (ROOT) rmSync(USR_APP, { recursive: true, force: true });
    for (const planted of [`/etc/${MARK}`, `/usr/local/${MARK}`, `/usr/local/sbin/${MARK}`])
      rmSync(planted, { force: true });
  });

  const out = (name: string) => probe.results[name]?.text ?? '';

  it('runs the bot side as the intended user, with the sandbox on', () => {
    expect(probe.uid).toBe(uid ?? process.getuid?.());
    expect(probe.status.state).toBe('on');
  });

  it('leaves the command no capability, under seccomp and no_new_privs', () => {
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'])
      expect(out('caps')).toMatch(new RegExp(`${set}:\\s+0000000000000000`));
    expect(out('caps')).toMatch(/Seccomp:\s+2/);
    expect(out('caps')).toMatch(/NoNewPrivs:\s+1/);
  });

  it('cannot umount the cover of /etc/shadow to read the host file', () => {
    expect(out('shadow')).toMatch(/umount=(?!0)\d+/);
    if (hostShadow) expect(out('shadow')).not.toContain(hostShadow.split('\n')[0]);
  });

  it('cannot remount /etc or /usr read-write, nor write under them', () => {
    expect(out('remountEtc')).toMatch(/remount=(?!0)\d+/);
    expect(out('remountEtc')).toMatch(/write=(?!0)\d+/);
    expect(out('remountUsr')).toMatch(/remount=(?!0)\d+/);
    expect(out('remountUsr')).toMatch(/write=(?!0)\d+/);
    expect(existsSync(`/etc/${MARK}`)).toBe(false);
    expect(existsSync(`/usr/local/${MARK}`)).toBe(false);
    expect(existsSync(`/usr/local/sbin/${MARK}`)).toBe(false);
  });

  it('cannot create nested namespaces (`unshare -Urn` and others)', () => {
    expect(out('nested')).toMatch(/userns=(?!0)\d+/);
    expect(out('nested')).toMatch(/mountns=(?!0)\d+/);
    expect(out('nested')).toMatch(/pidns=(?!0)\d+/);
    expect(out('nested')).not.toContain('uid=0(root) gid=0(root) groups=0(root)\nuserns=0');
  });

  it('cannot uncover .env or the data directory in the workspace, with Bash or the file tools', () => {
    expect(out('dotEnv')).toContain('done');
    expect(out('dotEnv')).not.toContain(SECRET);
    expect(out('dotEnv')).not.toContain(DATA_SECRET);
    expect(Buffer.from(probe.helperReadEnv.data ?? '', 'base64').toString()).not.toContain(SECRET);
    expect(JSON.stringify(probe.helperReadEnv)).not.toContain(SECRET);
  });

  it.runIf(ROOT)('cannot read the bot files of a project under /usr through the read-only /usr', () => {
    expect(out('usrApp')).toContain('done');
    expect(out('usrApp')).not.toContain(SECRET);
    expect(out('usrApp')).not.toContain(DATA_SECRET);
  });

  it('sees only its own processes: not the bot, not the file helper', () => {
    expect(out('processes')).toContain('ppid=1');
    expect(out('processes')).not.toMatch(/node|vitest|escape-probe/);
  });

  it.runIf(arch !== undefined)('gets EPERM from the seccomp filter for the calls escapes are made of', () => {
    const lines = out('seccomp').trim().split('\n');
    expect(lines).toEqual(SECCOMP_CALLS.map((name) => `${name} -1 1`));
  });

  it('has a sized /tmp and /dev/shm and a read-only root and /dev', () => {
    expect(out('tmpfs')).toMatch(/tmp=(?!0)\d+/);
    expect(out('tmpfs')).toMatch(/shm=(?!0)\d+/);
    expect(out('tmpfs')).toMatch(/rootfs=(?!0)\d+/);
    expect(out('tmpfs')).toContain('No space left on device');
    expect(out('tmpfs')).toContain('Read-only file system');
  });

  it('is held to the memory limit where a cgroup can be made (here: as root), and says so where not', () => {
    // Root can make a memory cgroup here (cgroup v1, beneath the bot's own); nobody cannot.
    if (ROOT && uid === undefined) {
      // The 200 MiB allocation is over the 96 MiB limit: the kernel kills it.
      expect(out('memory')).not.toContain(String(200 * 1024 * 1024));
      expect(out('memory')).toMatch(/alloc=137/);
    } else {
      // The documented fallback: no cgroup, only ulimit's address space per process (4 GiB by default).
      expect(out('memory')).toContain(String(200 * 1024 * 1024));
    }
  });

  it('ends a command that stops its parent at the timeout the bot keeps', () => {
    expect(probe.results.stopParent?.ended).toBe('timeout');
    expect(probe.results.stopParent?.ms).toBeLessThan(10_000);
  });
});
