#!/usr/bin/env python3
"""ONNX Runtime's Silero VAD probabilities and speed: the reference Earshot's own inference is held to.

    # the parity fixture the Swift tests read (committed; a few KB):
    python Benchmarks/vad/silero_reference.py fixture > Tests/EarshotVADTests/Fixtures/silero_reference.json
    # onnxruntime's speed, one thread, one call per 512-sample chunk as Silero's wrapper makes them:
    python Benchmarks/vad/silero_reference.py time [--repeat N]

Needs onnxruntime and numpy (`make silero-reference-venv` makes .earshot/venv with both) and the model
(`make models`, or --model / EARSHOT_VAD_MODEL). Audio: the LibriVox and cards recordings of Debian's
pocketsphinx-testdata and the noisy corpus's committed sample, 16 kHz mono 16-bit WAV, read with the
standard library's `wave` as int16 / 32768 (what libsndfile gives Earshot).

Streaming is Silero's own OnnxWrapper.__call__ (silero_vad/utils_vad.py): state (2, 1, 128) and a 64-sample
context start at zero; each call feeds context + 512 samples with sr=16000, keeps the returned state and
the last 64 samples of that input as the next context. The last partial chunk is zero-padded, as
get_speech_timestamps does. Every recording starts from a fresh state (reset_states).
"""
import argparse, json, os, sys, time, wave

import numpy as np
import onnxruntime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = "/usr/share/pocketsphinx/test/data"
RECORDINGS = [
    ("librivox", f"{TESTDATA}/librivox/sense_and_sensibility_01_austen_64kb-0870.wav"),
    ("librivox", f"{TESTDATA}/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"),
    ("cards", f"{TESTDATA}/cards/001.wav"),
    ("cards", f"{TESTDATA}/cards/005.wav"),
    ("corpora", "corpora/noisy/sample/audio/cards-001-music-5db.wav"),
    ("corpora", "corpora/noisy/sample/audio/nospeech-008-brown.wav"),
]
CHUNK, CONTEXT = 512, 64


def model_path(explicit):
    path = explicit or os.environ.get("EARSHOT_VAD_MODEL") or os.path.join(
        ROOT, ".earshot/models/silero-vad/silero_vad.onnx")
    if not os.path.exists(path):
        sys.exit(f"{path}: silero_vad.onnx not found; run `make models` or pass --model PATH")
    return path


def read(path):
    full = path if os.path.isabs(path) else os.path.join(ROOT, path)
    with wave.open(full) as wav:
        if wav.getframerate() != 16000 or wav.getnchannels() != 1 or wav.getsampwidth() != 2:
            sys.exit(f"{full}: expected 16 kHz mono 16-bit WAV")
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def session(path):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])


def probabilities(sess, samples):
    state = np.zeros((2, 1, 128), dtype=np.float32)
    context = np.zeros((1, CONTEXT), dtype=np.float32)
    sr = np.array(16000, dtype=np.int64)
    padded = np.concatenate([samples, np.zeros((-len(samples)) % CHUNK, dtype=np.float32)])
    out = []
    for start in range(0, len(padded), CHUNK):
        x = np.concatenate([context, padded[None, start:start + CHUNK]], axis=1)
        p, state = sess.run(None, {"input": x, "state": state, "sr": sr})
        context = x[:, -CONTEXT:]
        out.append(float(p[0, 0]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["fixture", "time"])
    parser.add_argument("--model")
    parser.add_argument("--repeat", type=int, default=5, help="passes over the audio when timing (best is kept)")
    parser.add_argument("--audio", nargs="+", help="time these 16 kHz mono WAV files instead of the fixture's")
    args = parser.parse_args()
    sess = session(model_path(args.model))
    audio = [("file", path, read(path)) for path in args.audio] if args.audio else \
        [(kind, path, read(path)) for kind, path in RECORDINGS]
    if args.mode == "fixture":
        doc = {"schema_version": 1, "model": "silero_vad.onnx from PyPI silero-vad",
               "onnxruntime": onnxruntime.__version__, "chunk_samples": CHUNK, "context_samples": CONTEXT,
               "recordings": [{"source": kind, "path": path, "samples": len(s),
                               "probabilities": [round(p, 7) for p in probabilities(sess, s)]}
                              for kind, path, s in audio]}
        json.dump(doc, sys.stdout, separators=(",", ":"))
        print()
        return
    chunks = sum((len(s) + CHUNK - 1) // CHUNK for _, _, s in audio)
    best = best_cpu = float("inf")
    for _ in range(args.repeat):
        begin, begin_cpu = time.perf_counter(), time.process_time()
        for _, _, s in audio:
            probabilities(sess, s)
        best = min(best, time.perf_counter() - begin)
        best_cpu = min(best_cpu, time.process_time() - begin_cpu)
    per_chunk = best / chunks * 1e6
    # The same calls with every input built beforehand: session.run alone, without the wrapper's numpy work.
    feeds = []
    for _, _, s in audio:
        padded = np.concatenate([np.zeros(CONTEXT, dtype=np.float32), s,
                                 np.zeros((-len(s)) % CHUNK, dtype=np.float32)])
        feeds.append([padded[None, start:start + CHUNK + CONTEXT].copy()
                      for start in range(0, len(padded) - CONTEXT, CHUNK)])
    sr = np.array(16000, dtype=np.int64)
    run_only = float("inf")
    for _ in range(args.repeat):
        begin = time.perf_counter()
        for inputs in feeds:
            state = np.zeros((2, 1, 128), dtype=np.float32)
            for x in inputs:
                _, state = sess.run(None, {"input": x, "state": state, "sr": sr})
        run_only = min(run_only, time.perf_counter() - begin)
    run_only_per_chunk = run_only / chunks * 1e6
    print(json.dumps({"engine": f"onnxruntime {onnxruntime.__version__}", "threads": 1, "chunks": chunks,
                      "us_per_chunk": round(per_chunk, 2), "real_time_factor": round(32000 / per_chunk, 1),
                      "cpu_us_per_chunk": round(best_cpu / chunks * 1e6, 2),
                      "session_run_only_us_per_chunk": round(run_only_per_chunk, 2),
                      "session_run_only_real_time_factor": round(32000 / run_only_per_chunk, 1)}))


if __name__ == "__main__":
    main()
