#!/usr/bin/env bash
# Instruction counts per stage, from valgrind's callgrind: exact and repeatable on a shared, noisy
# machine (the same binary and input give the same counts whatever else runs), so a later change
# can be compared with them. Runs `earshot encode --format speex-wb` (with each resampler) and
# `earshot endpoint` (silero) on 10 s of 44.1 kHz stereo speech and prints each stage's inclusive
# instructions (the stage's Swift code and the C library it calls), per 10 s of audio.
#
#   Benchmarks/callgrind/stage_counts.sh [EARSHOT_BINARY]
# Needs valgrind (Debian) and the Silero weights (make models). valgrind 3.19 cannot read the DWARF 5
# debug information Swift 6.3 writes, so a copy of the binary without it is measured (symbols stay).
set -euo pipefail
earshot=${1:-.build/release/earshot}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source=/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav
sox "$source" -r 44100 -c 2 "$work/in.wav" repeat - trim 0 10
cp "$earshot" "$work/earshot" && strip --strip-debug "$work/earshot"
export EARSHOT_NO_PROGRESS=1 OPENBLAS_NUM_THREADS=1
export EARSHOT_VAD_MODEL=${EARSHOT_VAD_MODEL:-$PWD/.earshot/models/silero-vad/silero_vad.onnx}
run() {  # name, command…
    local name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.out" "$@" >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --threshold=100 "$work/$name.out" >"$work/$name.txt"
}
run soxr "$work/earshot" encode --format speex-wb --resampler soxr "$work/in.wav" "$work/out.speex"
run speexdsp "$work/earshot" encode --format speex-wb --resampler speexdsp "$work/in.wav" "$work/out.speex"
run endpoint "$work/earshot" endpoint "$work/in.wav"
/usr/bin/python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]
stages = [  # label, run, a pattern of the (mangled) symbol
    ("whole process: encode speex-wb, libsoxr", "soxr", r"PROGRAM TOTALS"),
    ("whole process: encode speex-wb, speexdsp", "speexdsp", r"PROGRAM TOTALS"),
    ("file source (libsndfile read)", "soxr", r"AudioFileSourceC4read"),
    ("Resampler, libsoxr (downmix included)", "soxr", r"9ResamplerC7process_"),
    ("  of which soxr_process", "soxr", r"\?\?\?:soxr_process "),
    ("Resampler, speexdsp q4 (downmix included)", "speexdsp", r"9ResamplerC7process_"),
    ("  of which speex_resampler_process_float", "speexdsp", r"speex_resampler_process_float "),
    ("VADStage, silero", "endpoint", r"8VADStageC7process_"),
    ("  of which cblas_sgemv (OpenBLAS)", "endpoint", r"cblas_sgemv "),
    ("DecisionSmoother", "endpoint", r"16DecisionSmootherV7process_"),
    ("EndpointerStage", "endpoint", r"15EndpointerStageV7process_"),
    ("SpeexEncoder, wideband q4 VBR", "soxr", r"12SpeexEncoderC7process_"),
]
print("| stage | instructions per 10 s of audio |\n|---|---:|")
for label, run, pattern in stages:
    text = open(f"{work}/{run}.txt").read()
    line = next((l for l in text.splitlines() if re.search(pattern, l)), None)
    count = int(line.split()[0].replace(",", "")) if line else 0
    print(f"| {label} | {count:,} |".replace(f"{count:,}", f"{count:,}".replace(",", " ")))
PY
