#!/usr/bin/env bash
# A short load test for `make bench`: starts `earshot serve` on a free loopback port with a one-off
# app secret, replays the committed sample corpus as 1 and 2 live streams for 10 s each, prints the
# table, and stops the service. Usage: short-load.sh [EARSHOT_BINARY]
set -euo pipefail
earshot=${1:-.build/release/earshot}
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
secret=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo "bench-app:$secret" > "$work/apps.txt"
chmod 600 "$work/apps.txt"    # earshot serve reads only owner-only secrets files
"$earshot" serve --port 0 --credentials "$work/apps.txt" --log-level warning 2> "$work/serve.log" &
server=$!
for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$work/serve.log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "${port:-}" ] || { cat "$work/serve.log" >&2; exit 1; }
"$earshot" bench --service "http://127.0.0.1:$port/speech/v3/speechToText" --app-key bench-app --secret "$secret" \
    --corpus corpora/real/sample --streams 1,2 --duration 10 --server-pid "$server"
