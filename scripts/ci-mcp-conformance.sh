#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios (auth included)
# against switchboard's MCP client (test/conformance/mcp-client.ts, run on
# the project's own Node). The suite needs Node 22: when the machine's Node
# is older, a pinned Node comes from the npm registry's `node` package,
# installed with the suite into a scratch folder outside the project, so the
# project's dependencies stay as they are.
#
# Scenarios switchboard does not pass yet are listed, with why, in
# test/conformance/expected-failures.yml: the suite fails on any other
# failure, and on a listed scenario that passes (so the list stays true).
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.16
NODE_VERSION=22.23.3
dir="${SWITCHBOARD_CI_CACHE:-${TMPDIR:-/tmp}}/switchboard-mcp-conformance-$CONFORMANCE_VERSION"
log() { printf 'ci-mcp-conformance: %s\n' "$*" >&2; }

project_node="$(command -v node)"
packages=("@modelcontextprotocol/conformance@$CONFORMANCE_VERSION")
node_major="$("$project_node" -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 22 ]; then packages+=("node@$NODE_VERSION"); fi

if [ ! -f "$dir/.installed" ] || [ "$(cat "$dir/.installed")" != "${packages[*]}" ]; then
  log "installing ${packages[*]} into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{"name":"switchboard-mcp-conformance","private":true}\n' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --save-exact "${packages[@]}" >&2
  printf '%s' "${packages[*]}" >"$dir/.installed"
fi

suite_node="$project_node"
if [ -x "$dir/node_modules/node/bin/node" ]; then suite_node="$dir/node_modules/node/bin/node"; fi
log "suite on Node $("$suite_node" --version), client on Node $("$project_node" --version)"

rm -rf "$dir/results"
suite() {
  # The suite's own Node first on PATH: it starts its test servers with it.
  PATH="$(dirname "$suite_node"):$PATH" "$suite_node" \
    "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"
}
# One scenario at a time: run all at once, two dozen clients starting together on a small
# machine miss the suite's 30 s limit and its reconnect-timing window (sse-retry).
mapfile -t scenarios < <(suite list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
[ "${#scenarios[@]}" -gt 0 ] || { log 'the suite listed no client scenarios'; exit 1; }
failed=()
for scenario in "${scenarios[@]}"; do
  if suite client \
    --command "$project_node $PWD/node_modules/tsx/dist/cli.mjs $PWD/test/conformance/mcp-client.ts" \
    --scenario "$scenario" \
    --expected-failures "$PWD/test/conformance/expected-failures.yml" \
    --output-dir "$dir/results" >"$dir/last.txt" 2>&1; then
    log "ok: $scenario"
  else
    cat "$dir/last.txt" >&2
    log "FAILED: $scenario (a failure not in test/conformance/expected-failures.yml, or a listed one that now passes)"
    failed+=("$scenario")
  fi
done
log "${#scenarios[@]} client scenarios, ${#failed[@]} not as expected${failed[*]:+: ${failed[*]}}"
[ "${#failed[@]}" -eq 0 ]
