/**
 * What a sandbox is asked to be: the mode, the network, the limits on what a
 * command may use, and the paths that must not exist inside.
 */

/** `auto`: use it when it works, else refuse Bash; `required`: never start without it; `off`: an admin's explicit choice. */
export type SandboxMode = 'auto' | 'required' | 'off';

/** The sandbox modes, for configuration checks. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

/** Network inside the sandbox: none (own empty namespace) or the host's. */
export type SandboxNetwork = 'none' | 'host';

/** The sandbox networks, for configuration checks. */
export const SANDBOX_NETWORKS: readonly SandboxNetwork[] = ['none', 'host'];

/** Resource limits of each sandbox: `ulimit` inside each command, a cgroup and sized tmpfs around it. */
export interface SandboxLimits {
  /** Processes of the sandbox's user (fork bombs); also the cgroup's `pids.max` where a cgroup can be made. */
  processes: number;
  /** Memory of one sandbox, tmpfs files included, where a memory cgroup can be made (see cgroup.ts). */
  memoryBytes: number;
  /** Size of the sandbox's /tmp (RAM-backed); /dev/shm and /run get an eighth and 16 MiB. */
  tmpBytes: number;
  /** Address space per process, in KiB. */
  memoryKb: number;
  /** Largest file a command may write, in 512-byte blocks. */
  fileBlocks: number;
  /** CPU seconds per process. */
  cpuSeconds: number;
}

/** 256 processes, 2 GiB of memory, a 512 MiB /tmp, 4 GiB of address space each, 1 GiB files, 10 CPU minutes. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  processes: 256,
  memoryBytes: 2 * 1024 * 1024 * 1024,
  tmpBytes: 512 * 1024 * 1024,
  memoryKb: 4 * 1024 * 1024,
  fileBlocks: 2 * 1024 * 1024,
  cpuSeconds: 600,
};

/** Options of {@link Sandbox}. */
export interface SandboxSettings {
  /** Default `auto`. */
  mode?: SandboxMode;
  /** Default `none`. */
  network?: SandboxNetwork;
  limits?: Partial<SandboxLimits>;
  /**
   * The bot's own files (the data directory, `.env`, the log file, the MCP
   * config): wherever a mounted tree (the workspace, /usr, /etc...) would
   * show them, an empty folder or file is mounted over them.
   */
  hidden?: readonly string[];
  /** The bubblewrap binary: an absolute path, or a name looked up once in PATH (default `bwrap`). */
  bwrapPath?: string;
  /**
   * Start a turn's file helper as soon as the turn opens, beside its first
   * model request, in a workspace whose last turn used the file tools, so
   * the first tool call does not wait for it (default true).
   */
  prestart?: boolean;
}

/** What {@link Sandbox.check} found. */
export type SandboxStatus =
  | { state: 'on'; network: SandboxNetwork }
  | { state: 'off' }
  | { state: 'unavailable'; reason: string; fix: string };

/**
 * The environment commands see: an allowlist, so a secret under any name
 * (`GPG_PASSPHRASE`, `STRIPE_SK`...) stays out. Locale and time zone are
 * copied from `source`; the rest is fixed.
 */
export function sandboxEnv(cwd: string, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: cwd,
    TMPDIR: '/tmp',
    SHELL: '/bin/bash',
    TERM: 'dumb',
    LANG: 'C.UTF-8',
  };
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && (name === 'LANG' || name === 'TZ' || /^LC_[A-Z]+$/.test(name)))
      env[name] = value;
  }
  return env;
}

/** The `/status` line (and log warning) for a sandbox that is not in force, or undefined when it is. */
export function sandboxWarning(status: SandboxStatus): string | undefined {
  if (status.state === 'unavailable') {
    return `Sandbox: unavailable: ${status.reason}. Bash is not offered to the model. ${status.fix}`;
  }
  if (status.state === 'off')
    return "Sandbox: off (SWITCHBOARD_SANDBOX=off); commands run with the bot's own rights";
  return undefined;
}
