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

/** Resource limits of each Bash command (set with `ulimit` inside, soft and hard). */
export interface SandboxLimits {
  /** Processes of the sandbox's user (fork bombs); also a pids cgroup when the bot runs as root. */
  processes: number;
  /** Address space per process, in KiB. */
  memoryKb: number;
  /** Largest file a command may write, in 512-byte blocks. */
  fileBlocks: number;
  /** CPU seconds per process. */
  cpuSeconds: number;
}

/** 256 processes, 4 GiB of address space each, 1 GiB files, 10 CPU minutes. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  processes: 256,
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
   * Paths hidden inside the sandbox even when they lie within a workspace
   * (the data directory, `.env`): an empty folder or file is mounted over them.
   */
  hidden?: readonly string[];
  /** The bubblewrap binary (default `bwrap` on PATH). */
  bwrapPath?: string;
}

/** What {@link Sandbox.check} found. */
export type SandboxStatus =
  | { state: 'on'; network: SandboxNetwork }
  | { state: 'off' }
  | { state: 'unavailable'; reason: string };

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
    return `Sandbox: unavailable (${status.reason}); Bash is refused until bubblewrap works or an admin sets SWITCHBOARD_SANDBOX=off`;
  }
  if (status.state === 'off')
    return "Sandbox: off (SWITCHBOARD_SANDBOX=off); commands run with the bot's own rights";
  return undefined;
}
