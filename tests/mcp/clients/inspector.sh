#!/usr/bin/env bash
# The official MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in package.json
# beside this script) lists a server's tools and checks their schemas for portability
# (`--strict`): the full report goes to stderr, and this exits non-zero when it has an
# error (the Inspector's exit code 6, schema_unportable), or any other failure (4: server
# unreachable, 1: usage). With --fail-on-warnings, warnings fail the run too (exit 6).
#
# Usage: tests/mcp/clients/inspector.sh [--fail-on-warnings] SERVER [ARGS...]   (stdio)
#        tests/mcp/clients/inspector.sh [--fail-on-warnings] http://HOST:PORT/mcp
#
# The command it runs, with $modules the node_modules of scripts/test/node-clients:
#   $modules/.bin/node $modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js \
#       --cli --method tools/list --strict --format json SERVER [ARGS...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
fail_on_warnings=0
if [[ "${1:-}" == --fail-on-warnings ]]; then fail_on_warnings=1; shift; fi
[[ $# -ge 1 ]] || { echo "usage: $0 [--fail-on-warnings] SERVER [ARGS...] | URL" >&2; exit 1; }

node="$("$root/scripts/test/node-clients")"
modules="$(cd "$(dirname "$node")/.." && pwd)"   # .../mcp-clients/node_modules
inspector="$modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
# Anything the Inspector starts with `node` gets the pinned Node.js 22, not the machine's.
export PATH="$(dirname "$(readlink -f "$node")"):$PATH"

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
status=0
"$node" "$inspector" --cli --method tools/list --strict --format json --connect-timeout 20000 "$@" >"$out" || status=$?
# One line: what was listed and what the report found (the report itself is on stderr).
summary="$("$node" -e '
    const envelope = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8") || "{}");
    const tools = envelope.result?.tools ?? [];
    const findings = (envelope.schemaFindings ?? []).flatMap((t) => t.findings);
    const errors = findings.filter((f) => f.severity === "error").length;
    const rules = [...new Set(findings.map((f) => f.rule))].join(", ");
    console.log(`${tools.length} ${errors} ${findings.length - errors} ${rules || "-"}`);
' "$out" 2>/dev/null || echo "0 0 0 -")"
read -r tools errors warnings rules <<<"$summary"
version="$("$node" -p 'require(process.argv[1]).version' "$modules/@modelcontextprotocol/inspector/package.json")"
echo "inspector $version --strict: $tools tools listed; $errors errors, $warnings warnings (rules: $rules); exit $status"
if [[ $status -eq 0 && $fail_on_warnings -eq 1 && $warnings -gt 0 ]]; then status=6; fi
if [[ $status -eq 0 && $tools -eq 0 ]]; then echo "inspector: no tools listed" >&2; status=1; fi
exit $status
