/**
 * Why bubblewrap cannot start a sandbox here, in words an operator can act
 * on: a missing binary, a bubblewrap too old for the options the sandbox
 * needs, or user namespaces blocked (by a sysctl, AppArmor, or a container's
 * seccomp profile such as Docker's default), each with its fix.
 */
import { existsSync, readFileSync } from 'node:fs';

/** A sandbox that cannot run: what is wrong and how to fix it. */
export interface SandboxProblem {
  /** What is wrong, e.g. "user namespaces are disabled (kernel.unprivileged_userns_clone = 0)". */
  cause: string;
  /** What an admin can do about it. */
  fix: string;
}

const OFF = "or set SWITCHBOARD_SANDBOX=off to run commands with the bot's own rights";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** True inside a Docker, Podman or containerd container. */
function inContainer(): boolean {
  if (existsSync('/.dockerenv') || existsSync('/run/.containerenv')) return true;
  return /docker|containerd|kubepods|libpod/.test(read('/proc/1/cgroup') ?? '');
}

/** The bubblewrap binary could not be found or run. */
export function missingBinary(detail: string): SandboxProblem {
  return {
    cause: `bubblewrap is not installed (${detail})`,
    fix: `Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap), ${OFF}.`,
  };
}

/** Explains bubblewrap's error output `stderr` (it exited with `code`). */
export function diagnose(stderr: string, code: number | null): SandboxProblem {
  const said = stderr.trim().split('\n').slice(-2).join(' ') || `bwrap exited with ${code}`;
  if (/Unknown option|unrecognized option/i.test(said)) {
    return {
      cause: `this bubblewrap is too old (${said})`,
      fix: `Install bubblewrap 0.8 or newer (for --disable-userns and --size), ${OFF}.`,
    };
  }
  const namespaces =
    /namespace|uid map|setting up uid|clone|Operation not permitted|Permission denied|No permissions/i.test(
      said,
    );
  if (!namespaces)
    return {
      cause: `bubblewrap failed (${said})`,
      fix: `Check that bwrap works for the bot's user, ${OFF}.`,
    };
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0') {
    return {
      cause: `user namespaces are disabled for unprivileged users (kernel.unprivileged_userns_clone = 0; bubblewrap said: ${said})`,
      fix: `Allow them: sysctl -w kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d/ to keep it), ${OFF}.`,
    };
  }
  if (read('/proc/sys/user/max_user_namespaces') === '0') {
    return {
      cause: `user namespaces are disabled (user.max_user_namespaces = 0; bubblewrap said: ${said})`,
      fix: `Allow them: sysctl -w user.max_user_namespaces=15000 (and in /etc/sysctl.d/ to keep it), ${OFF}.`,
    };
  }
  if (read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1') {
    return {
      cause: `AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1; bubblewrap said: ${said})`,
      fix: `Give bwrap an AppArmor profile that allows userns (Ubuntu 24.04: /etc/apparmor.d/bwrap with "userns,"), or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, ${OFF}.`,
    };
  }
  if (inContainer()) {
    return {
      cause: `the container refuses to create namespaces, as Docker's default seccomp profile does (bubblewrap said: ${said})`,
      fix: `Let the container create user namespaces: docker run --security-opt seccomp=unconfined, plus --security-opt apparmor=unconfined where AppArmor is on and --security-opt systempaths=unconfined if /proc cannot be mounted (compose: security_opt), ${OFF} (the container is then the only boundary).`,
    };
  }
  return {
    cause: `user namespaces are blocked here (bubblewrap said: ${said})`,
    fix: `Allow unprivileged user namespaces for the bot's user (a sysctl, an LSM policy or a seccomp profile blocks them), ${OFF}.`,
  };
}
