/**
 * The bubblewrap command line of a chat turn's sandbox. Deny by default: the
 * new root is empty, and only what a shell needs is mounted into it.
 */
import { existsSync, lstatSync } from 'node:fs';
import { dirname } from 'node:path';
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

/** What the command line is built from. */
export interface BwrapLayout {
  /** The chat's workspace (real path), mounted read-write at the same path. */
  workspace: string;
  network: SandboxNetwork;
  /** Paths to cover (data directory, .env) when they would otherwise be visible. */
  hidden: readonly string[];
  /** The Node binary that runs the helper; its install folder is mounted when outside /usr. */
  nodePath: string;
  /** Environment of everything inside (an allowlist, see sandboxEnv). */
  env: Record<string, string>;
}

function mountSystem(args: string[]): void {
  for (const dir of SYSTEM_DIRS) {
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(dir);
    } catch {
      continue;
    }
    // Merged /usr: /bin -> usr/bin stays a link, not a second mount.
    if (info.isSymbolicLink()) args.push('--symlink', `usr${dir}`, dir);
    else args.push('--ro-bind', dir, dir);
  }
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

/** True when `path` is `root` or lies beneath it. */
function under(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * Arguments for `bwrap` (before the command): own user, PID, IPC, UTS and
 * (unless `host`) network namespaces; a fresh /proc and minimal /dev; a
 * private /tmp; the system read-only with /etc's secrets covered; the
 * workspace read-write; a cleared environment; death with the bot.
 */
export function bwrapArgs(layout: BwrapLayout): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--hostname', 'sandbox'];
  if (layout.network === 'host') args.push('--share-net');
  mountSystem(args);
  for (const secret of ETC_SECRETS) hide(args, secret);
  const nodeDir = dirname(dirname(layout.nodePath));
  if (!SYSTEM_DIRS.some((dir) => under(dir, layout.nodePath))) args.push('--ro-bind', nodeDir, nodeDir);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run', '--dir', '/var/tmp');
  args.push('--bind', layout.workspace, layout.workspace);
  for (const path of layout.hidden) if (under(layout.workspace, path)) hide(args, path);
  // Folders of the workspace that belong to the bot (a project store's state).
  const state = `${layout.workspace}/.switchboard`;
  if (existsSync(state)) hide(args, state);
  args.push('--chdir', layout.workspace, '--clearenv');
  for (const [name, value] of Object.entries(layout.env)) args.push('--setenv', name, value);
  return args;
}
