#!/usr/bin/env bash
# `earshot bench --embedded` under each --decoder preset, side by side in one run: the presets take
# turns, ROUNDS times each, so a busy machine slows them alike. Each run replays the corpus's
# utterances as 2, 4 and 6 live (real-time paced) streams for 20 s per level and writes its JSON
# report to Benchmarks/recognizer/results/bench-PRESET-ROUND.json; the table gives, per preset and
# level, the median over the rounds of the requests done and of the p50 and p95 end of speech →
# result.
#
#   Benchmarks/recognizer/presets_bench.sh [EARSHOT_BINARY] [CORPUS] [ROUNDS]
set -euo pipefail
earshot=${1:-.build/release/earshot}
corpus=${2:-corpora/build/real}
rounds=${3:-2}
results=Benchmarks/recognizer/results
mkdir -p "$results"
presets=(accurate balanced fast)
for round in $(seq 1 "$rounds"); do
    for preset in "${presets[@]}"; do
        "$earshot" bench --embedded --decoder "$preset" --corpus "$corpus" --streams 2,4,6 --duration 20 --json \
            >"$results/bench-$preset-$round.json"
    done
done
python3 - "$results" "$rounds" "${presets[@]}" <<'PY'
import json, statistics, sys
results, rounds, presets = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("| preset | streams | done (median) | end of speech → result p50 / p95, s (medians over rounds) |")
print("|---|---:|---:|---|")
for preset in presets:
    reports = [json.load(open(f"{results}/bench-{preset}-{r}.json")) for r in range(1, rounds + 1)]
    for index, level in enumerate(reports[0]["levels"]):
        levels = [report["levels"][index] for report in reports]
        median = lambda key: statistics.median(l[key] for l in levels if l[key] is not None)
        print(f"| {preset} | {level['streams']} | {median('completed'):g} | "
              f"{median('p50_s'):.2f} / {median('p95_s'):.2f} |")
PY
