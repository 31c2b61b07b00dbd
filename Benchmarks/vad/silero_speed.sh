#!/bin/sh
# Silero VAD's network: Earshot's own inference against ONNX Runtime on one thread, on the same audio, in
# one run. CPU time (user), because the machine is shared and wall-clock follows the neighbours' load.
#   Benchmarks/vad/silero_speed.sh [FILE.wav]      (default: the long corpus's first 10-minute recording)
# Earshot's figure is `earshot vad --detector silero` minus `--detector energy` on the same file (energy
# costs ~0.01 µs/sample, so the difference is the network plus the model load, ~10 ms): the whole CLI path,
# VADStage framing included. ONNX Runtime's is Benchmarks/vad/silero_reference.py time: one session.run
# per 512-sample chunk with Silero's OnnxWrapper's numpy work, intra/inter-op threads 1.
# Needs make models, a release build (swift build -c release --product earshot), the long corpus
# (earshot corpus build long --out corpora/build/long --seed 1) and a Python with onnxruntime and numpy
# (PYTHON, default .earshot/venv/bin/python). The package-benchmark target has the same loop with
# allocation counts: swift package benchmark --target EarshotBenchmarks --filter "VAD silero.*".
set -eu
cd "$(dirname "$0")/../.."
FILE=${1:-corpora/build/long/audio/long-001.wav}
EARSHOT=${EARSHOT:-.build/release/earshot}
PYTHON=${PYTHON:-.earshot/venv/bin/python}
samples=$(soxi -s "$FILE")
chunks=$(( (samples + 511) / 512 ))
cpu() { /usr/bin/time -f %U "$EARSHOT" vad --detector "$1" --format probs "$FILE" 2>&1 >/dev/null | tail -1; }
for run in 1 2 3; do
	energy=$(cpu energy); silero=$(cpu silero)
	echo "earshot run $run: silero ${silero} s, energy ${energy} s user CPU for $chunks chunks" \
		"-> $(echo "($silero - $energy) * 1000000 / $chunks" | bc -l | xargs printf '%.1f') µs per chunk"
done
"$PYTHON" Benchmarks/vad/silero_reference.py time --repeat 3 --audio "$FILE"
