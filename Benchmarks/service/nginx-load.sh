#!/usr/bin/env bash
# The service's live capacity with one instance and with two behind nginx, side by side in one run:
# starts two `earshot serve` instances sharing a --token-key on free loopback ports and Debian's nginx
# in front of them with Examples/nginx/earshot.conf (its ports replaced), then replays the committed
# sample corpus with `earshot bench` at each stream count against one instance directly and against
# nginx, and prints what each instance counted in its /metrics. On one machine the two instances share
# the same cores, so this shows that streams spread correctly through nginx, not more capacity: the
# per-instance figure is the capacity model.
# Everything listens on 127.0.0.1 and is stopped on exit.
#
#   Benchmarks/service/nginx-load.sh [EARSHOT_BINARY] [STREAMS] [SECONDS_PER_LEVEL]
set -euo pipefail
earshot=${1:-.build/release/earshot}
streams=${2:-1,2,4,6,8}
duration=${3:-30}
work=$(mktemp -d)
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
secret=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo "bench-app:$secret" >"$work/apps.txt"
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$work/token.key"
chmod 600 "$work/apps.txt" "$work/token.key"    # earshot serve reads only owner-only secrets files

start_instance() {  # sets port to the port the instance listens on
    local log=$work/serve-$1.log
    # Not in a command substitution: the instance would hold its output open and the substitution would
    # never end.
    "$earshot" serve --port 0 --credentials "$work/apps.txt" --token-key "$work/token.key" \
        --log-level warning >/dev/null 2>"$log" &
    pids+=($!)
    for _ in $(seq 300); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$log")
        [[ -n $port ]] && return
        sleep 0.1
    done
    cat "$log" >&2
    exit 1
}
start_instance a
first=$port
start_instance b
second=$port
front=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx"
sed -e "s/127.0.0.1:8081/127.0.0.1:$first/; s/127.0.0.1:8082/127.0.0.1:$second/; s/127.0.0.1:8080/127.0.0.1:$front/" \
    Examples/nginx/earshot.conf >"$work/nginx/earshot.conf"
cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    include $work/nginx/earshot.conf;
}
CONF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
sleep 1

for target in "one instance|http://127.0.0.1:$first" "two behind nginx|http://127.0.0.1:$front"; do
    echo "== ${target%%|*}"
    "$earshot" bench --service "${target#*|}/speech/v3/speechToText" --app-key bench-app --secret "$secret" \
        --corpus corpora/real/sample --streams "$streams" --duration "$duration"
done

# Each instance's own count of what it served (its /metrics), over both runs: the nginx run spreads
# requests over the two, and the direct run adds to the first.
for instance in "first|$first" "second|$second"; do
    echo "== /metrics of the ${instance%%|*} instance"
    curl -s "http://127.0.0.1:${instance#*|}/metrics" |
        grep -E '^earshot_(http_requests_total\{route="/speech/v3/speechToText"|audio_recognized_seconds_total|unavailable_responses_total)'
done
