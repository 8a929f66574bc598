#!/usr/bin/env bash
# Installs a container engine (podman, with runc) for the test that runs the
# tools' sandbox in a container with the options the README documents
# (test/package/container-sandbox.test.ts; it is skipped without them).
# Idempotent: installs Debian's packages only when missing. No image is
# pulled: the test's container root is this machine's /usr and /etc.
set -euo pipefail

if command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1; then
  exit 0
fi
packages=(podman runc)
apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null 2>&1 ||
  { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null 2>&1; }
