#!/usr/bin/env bash
# Whole-process resampling, side by side in one run: earshot (libsoxr and speexdsp engines) against
# the sox and ffmpeg command lines, each reading a WAV and writing 16 kHz mono 16-bit WAV, for
# 44.1 kHz stereo, 48 kHz mono and 8 kHz mono speech. The commands take turns, ROUNDS times each,
# so a busy machine slows them alike; the table gives each one's median wall and CPU (user + system)
# seconds, real-time factor (audio seconds / wall seconds), and CPU relative to sox.
#
#   Benchmarks/resampler/side_by_side.sh [EARSHOT_BINARY] [ROUNDS]
# The input is the LibriVox recording of pocketsphinx-testdata, looped to 5 minutes by sox.
set -euo pipefail
earshot=${1:-.build/release/earshot}
rounds=${2:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source=/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav
seconds=300
sox "$source" -r 44100 -c 2 "$work/44k1-stereo.wav" repeat - trim 0 "$seconds"
sox "$source" -r 48000 -c 1 "$work/48k-mono.wav" repeat - trim 0 "$seconds"
sox "$source" -r 8000 -c 1 "$work/8k-mono.wav" repeat - trim 0 "$seconds"

declare -A commands=(
    [earshot-soxr]="$earshot encode --format wav --resampler soxr IN OUT"
    [earshot-speexdsp]="$earshot encode --format wav --resampler speexdsp IN OUT"
    [sox]="sox IN -r 16000 -c 1 -b 16 OUT"
    [ffmpeg]="ffmpeg -nostdin -loglevel error -y -i IN -ar 16000 -ac 1 -c:a pcm_s16le OUT"
)
names=(earshot-soxr earshot-speexdsp sox ffmpeg)
printf '| input | command | wall s (median) | CPU s (median) | × real time | CPU vs sox |\n|---|---|---:|---:|---:|---:|\n'
for input in 44k1-stereo 48k-mono 8k-mono; do
    for name in "${names[@]}"; do : >"$work/$name.times"; done
    for _ in $(seq "$rounds"); do
        for name in "${names[@]}"; do
            command=${commands[$name]//IN/$work/$input.wav}
            command=${command//OUT/$work/out-$name.wav}
            /usr/bin/time -f "%e %U %S" -a -o "$work/$name.times" $command
        done
    done
    python3 - "$work" "$input" "$seconds" "${names[@]}" <<'PY'
import statistics, sys
work, input, seconds, names = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
medians = {}
for name in names:
    rows = [list(map(float, line.split())) for line in open(f"{work}/{name}.times") if line.strip()]
    medians[name] = (statistics.median(r[0] for r in rows), statistics.median(r[1] + r[2] for r in rows))
for name in names:
    wall, cpu = medians[name]
    print(f"| {input} | {name} | {wall:.3f} | {cpu:.3f} | {seconds / wall:.0f} | {cpu / medians['sox'][1]:.2f} |")
PY
done
