#!/usr/bin/env bash
# The README's load test of the live path, with and without the final decode begun at the speaker's
# pause (issue 47), side by side in one run: `earshot serve` with its defaults (Whisper tiny.en), then
# the same with --no-early-decode, each loaded by `earshot bench --partial-results --json` at the given
# stream counts on the `real` corpus. Prints one line per server and level: completed, failed,
# end of speech → result p50, endpoint → result p50/p95, partial lag p50, the words the last partial results
# showed that the final ones changed (of all they showed), WER, server CPU; and writes
# the JSON reports to Benchmarks/service/results/.
# Each level is a bench run of its own against the same server, with /metrics read before and after,
# so the line also gives the CPU of the level's partial and final Whisper decodes (builds that count
# them: `earshot_decode_cpu_seconds_total`), how many partial decodes gave way to final ones, and how many
# final decodes their fitted window made do again on the full one (`earshot_final_decodes_redone_total`).
# Usage: live-whisper.sh [EARSHOT_BINARY] [STREAMS] [DURATION_S] [CORPUS]
# MODES compares other servers instead: space-separated NAME=SERVE_FLAGS (flags joined by commas), e.g.
#   MODES="fitted=--live-encoder-window,fitted full=--live-encoder-window,full" live-whisper.sh
# A NAME of the form LABEL@BINARY serves with another build of earshot (the load is always EARSHOT_BINARY's
# bench), to compare two commits side by side, e.g. MODES="before@/tmp/old/earshot=--early-decode after=--early-decode".
# BENCH_FLAGS gives the client's own flags (listen's endpointing), e.g.
#   BENCH_FLAGS="--endingSilence 0.5 --endingSilenceThreshold 0.5" live-whisper.sh
# PARTIALS=no loads the server without partial results (what they cost the final answers).
set -euo pipefail
earshot=${1:-.build/release/earshot}
streams=${2:-1,8}
duration=${3:-30}
corpus=${4:-corpora/build/real}
[ -f "$corpus/manifest.jsonl" ] || "$earshot" corpus build real --out "$corpus" --seed 1 >/dev/null
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
secret=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
echo "bench-app:$secret" > "$work/apps.txt"
chmod 600 "$work/apps.txt"
mkdir -p Benchmarks/service/results
stamp=$(date +%Y%m%d-%H%M)
partials=--partial-results
[ "${PARTIALS:-yes}" = no ] && partials=
for spec in ${MODES:-early-decode=--early-decode no-early-decode=--no-early-decode}; do
    mode=${spec%%=*}
    IFS=, read -r -a flags <<< "${spec#*=}"
    serving=$earshot
    if [[ $mode == *@* ]]; then serving=${mode#*@}; mode=${mode%%@*}; fi
    "$serving" serve --port 0 --credentials "$work/apps.txt" --log-level warning "${flags[@]}" 2> "$work/serve.log" &
    server=$!
    port=
    for _ in $(seq 300); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$work/serve.log")
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$work/serve.log" >&2; exit 1; }
    IFS=, read -r -a levels <<< "$streams"
    for level in "${levels[@]}"; do
        report="Benchmarks/service/results/live-whisper-$mode-$level-$stamp.json"
        # A mode named twice in MODES (to alternate it with another) gets a report of its own each time.
        n=2
        while [ -e "$report" ]; do
            report="Benchmarks/service/results/live-whisper-$mode-$level-$stamp-$n.json"
            n=$((n + 1))
        done
        curl -s "http://127.0.0.1:$port/metrics" > "$work/before.txt"
        "$earshot" bench --service "http://127.0.0.1:$port/speech/v3/speechToText" --app-key bench-app \
            --secret "$secret" --corpus "$corpus" --streams "$level" --duration "$duration" $partials \
            --json --server-pid "$server" ${BENCH_FLAGS:-} > "$report"
        curl -s "http://127.0.0.1:$port/metrics" > "$work/after.txt"
        python3 - "$mode" "$report" "$work/before.txt" "$work/after.txt" <<'PY'
import json, re, sys
mode, path, before, after = sys.argv[1:]
def read(path):
    values = {}
    for line in open(path):
        m = re.match(r'(earshot_\w*)(\{[^}]*\})? ([0-9.e+-]+)$', line.strip())
        if m: values[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return values
b, a = read(before), read(after)
d = lambda key: a.get(key, 0) - b.get(key, 0)
final_cpu, partial_cpu = d('earshot_decode_cpu_seconds_total{kind="final"}'), d('earshot_decode_cpu_seconds_total{kind="partial"}')
share = f"{partial_cpu / final_cpu:.2f}" if final_cpu > 0 else "-"
skipped, waited = d('earshot_decodes_total{kind="partial_skipped"}'), d('earshot_decode_wait_seconds_total')
redone = d('earshot_final_decodes_redone_total')
for level in json.load(open(path))["levels"]:
    f = lambda v: "-" if v is None else f"{v:.3f}"
    print(f"{mode:16} streams {level['streams']:2}  done {level['completed']:3}  failed {level['failed']:2}  "
          f"speech end→result p50 {f(level['p50_s'])}  endpoint→result p50 {f(level['endpoint_p50_s'])} "
          f"p95 {f(level['endpoint_p95_s'])}  partial lag p50 {f(level['partial_lag_p50_s'])}  "
          f"partial words revised {level.get('partial_words_revised')}/{level.get('partial_words_shown')}  "
          f"WER {f(level['wer'])}  server CPU {f(level['server_cpu_cores'])} cores  "
          f"decode CPU final {final_cpu:.1f} s partial {partial_cpu:.1f} s (×{share})  "
          f"partials skipped {skipped:.0f}  final wait {waited:.1f} s  redone in full {redone:.0f}")
PY
    done
    kill -INT "$server"; wait "$server" || true
done
