/**
 * The bubblewrap command line of a sandbox. Deny by default: the new root is
 * empty and read-only, and only what a shell needs is mounted into it. Who
 * runs the bot does not matter: every sandbox gets a user namespace of its
 * own with every capability dropped and no further user namespaces, and the
 * seccomp filter (seccomp.ts), so root outside is a powerless user inside.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { SwitchboardError } from '../errors.js';
import type { SandboxNetwork } from './settings.js';

/** Read-only system folders a shell needs; missing ones are skipped. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Files and folders of /etc that hold secrets on common distributions; hidden when present. */
const ETC_SECRETS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssh',
  '/etc/ssl/private',
  '/etc/security/opasswd',
  '/etc/machine-id',
  '/etc/credstore',
  '/etc/credstore.encrypted',
];

/** The descriptor bubblewrap reads the seccomp filter from (the fourth of the spawn's stdio). */
export const SECCOMP_FD = 3;
/** The descriptor bubblewrap reports the sandbox's first process on (`--info-fd`), to kill it by. */
export const INFO_FD = 4;

/** Sizes of the sandbox's RAM-backed folders, in bytes. */
export interface TmpfsSizes {
  tmp: number;
  devShm: number;
  run: number;
}

/** What the command line is built from. */
export interface BwrapLayout {
  /** The chat's workspace (real path), mounted read-write at the same path. */
  workspace: string;
  network: SandboxNetwork;
  /** The bot's own files and folders (data directory, .env, log, MCP config): covered wherever a mount shows them. */
  hidden: readonly string[];
  /** The Node binary that runs the helper; its install folder is mounted when outside /usr. */
  nodePath: string;
  /** Environment of everything inside (an allowlist, see sandboxEnv). */
  env: Record<string, string>;
  tmpfs: TmpfsSizes;
  /** Pass the seccomp filter on {@link SECCOMP_FD} (false only where no filter exists for the architecture). */
  seccomp: boolean;
}

/** True when `path` is `root` or lies beneath it. */
export function under(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Mounts the system folders; returns the trees they show (real paths). */
function mountSystem(args: string[]): string[] {
  const trees: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(dir);
    } catch {
      continue;
    }
    // Merged /usr: /bin -> usr/bin stays a link, not a second mount.
    if (info.isSymbolicLink()) args.push('--symlink', `usr${dir}`, dir);
    else {
      args.push('--ro-bind', dir, dir);
      trees.push(dir);
    }
  }
  return trees;
}

function hide(args: string[], path: string): void {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path);
  } catch {
    return;
  }
  if (info.isDirectory()) args.push('--tmpfs', path, '--remount-ro', path);
  else args.push('--ro-bind', '/dev/null', path);
}

/**
 * The bot's files a mounted tree would show, each under every name it has
 * (as given and its real path): those are covered. A file that holds a
 * mounted tree (the workspace inside the data directory is fine, the
 * workspace *being* it is not) cannot be covered without hiding the
 * workspace, and is refused.
 */
function coveredPaths(trees: readonly string[], hidden: readonly string[], workspace: string): string[] {
  const out = new Set<string>();
  for (const given of hidden) {
    for (const path of new Set([given, realOrSelf(given)])) {
      if (path === workspace || trees.some((tree) => tree !== workspace && under(path, tree))) {
        throw new SwitchboardError(
          'CONFIG_INVALID',
          `The sandbox would show the bot's own ${path} to commands (the workspace or a system folder is that folder or inside it). Choose a workspace (SWITCHBOARD_WORKSPACE) outside the data directory and the bot's files.`,
          { detail: { path, workspace } },
        );
      }
      if (trees.some((tree) => under(tree, path))) out.add(path);
    }
  }
  return [...out];
}

/**
 * Arguments for `bwrap` (before the command): own user (no capabilities, no
 * nested user namespaces), PID, IPC, UTS and (unless `host`) network
 * namespaces; a fresh /proc and a read-only minimal /dev; sized tmpfs for
 * /tmp, /dev/shm and /run; the system read-only with /etc's secrets and the
 * bot's files covered; the workspace read-write; a cleared environment; the
 * seccomp filter; death with the bot; the root read-only.
 */
export function bwrapArgs(layout: BwrapLayout): string[] {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
  ];
  if (layout.network === 'host') args.push('--share-net');
  const trees = mountSystem(args);
  for (const secret of ETC_SECRETS) hide(args, secret);
  const nodeDir = dirname(dirname(layout.nodePath));
  if (!trees.some((dir) => under(dir, realOrSelf(layout.nodePath)))) {
    args.push('--ro-bind', nodeDir, nodeDir);
    trees.push(nodeDir);
  }
  const { tmp, devShm, run } = layout.tmpfs;
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(devShm), '--tmpfs', '/dev/shm');
  // /dev is a tmpfs too: read-only, so nothing but /dev/shm can be filled (writing to devices still works).
  args.push('--remount-ro', '/dev');
  args.push('--size', String(tmp), '--tmpfs', '/tmp', '--size', String(run), '--tmpfs', '/run');
  args.push('--symlink', '../tmp', '/var/tmp');
  args.push('--bind', layout.workspace, layout.workspace);
  trees.push(layout.workspace);
  for (const path of coveredPaths(trees, layout.hidden, layout.workspace)) hide(args, path);
  // Folders of the workspace that belong to the bot (a project store's state).
  const state = `${layout.workspace}/.switchboard`;
  if (existsSync(state)) hide(args, state);
  args.push('--chdir', layout.workspace, '--clearenv');
  for (const [name, value] of Object.entries(layout.env)) args.push('--setenv', name, value);
  if (layout.seccomp) args.push('--seccomp', String(SECCOMP_FD));
  args.push('--info-fd', String(INFO_FD));
  // Last, once every mount point exists: the root itself (an unsized tmpfs) takes no writes.
  args.push('--remount-ro', '/');
  return args;
}
