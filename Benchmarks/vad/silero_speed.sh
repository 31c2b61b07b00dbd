#!/bin/sh
# Silero VAD's network: Earshot's own inference against ONNX Runtime on one thread, on the same audio (the
# six recordings of Tests/EarshotVADTests/Fixtures/silero_reference.json, 907 chunks of 32 ms), in one run.
# Needs the model (make models) and a Python with onnxruntime and numpy (PYTHON, default .earshot/venv).
#   Benchmarks/vad/silero_speed.sh
set -eu
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-.earshot/venv/bin/python}
echo "== onnxruntime, 1 intra-op and 1 inter-op thread, one session.run per chunk (Silero's OnnxWrapper)"
"$PYTHON" Benchmarks/vad/silero_reference.py time --repeat 5
echo "== Earshot (release), SileroDetector.probability per chunk"
swift package --allow-writing-to-package-directory benchmark --target EarshotBenchmarks \
	--filter "VAD silero.*" --format markdown --no-progress
echo "== onnxruntime again (load may have changed during the Swift run)"
"$PYTHON" Benchmarks/vad/silero_reference.py time --repeat 5
