#!/usr/bin/env bash
# Makes sure bubblewrap (the tools' sandbox) is installed and works, for the
# sandbox tests. Idempotent: installs Debian's packages only when missing,
# refreshing the package lists only when the install cannot find them. Progress goes to stderr; exits non-zero when bwrap still
# cannot start a sandbox (user namespaces off, say).
set -euo pipefail

log() { printf 'ci-bubblewrap: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# bwrap itself; scmp_sys_resolver (Debian's seccomp package), which the tests
# check the sandbox's seccomp filter numbers against; python3, which the
# escape tests use to make raw system calls inside the sandbox.
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v scmp_sys_resolver >/dev/null 2>&1 || missing+=(seccomp)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if ! as_root apt-get install -y -q "${missing[@]}" >&2; then
    as_root apt-get update -q >&2
    as_root apt-get install -y -q "${missing[@]}" >&2
  fi
fi

if bwrap --unshare-all --unshare-user --disable-userns --cap-drop ALL --die-with-parent --ro-bind / / --proc /proc --dev /dev true; then
  log "$(bwrap --version) works"
else
  log 'bwrap is installed but cannot start a sandbox: are user namespaces allowed (sysctl kernel.unprivileged_userns_clone)?'
  exit 1
fi
