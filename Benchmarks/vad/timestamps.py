#!/usr/bin/env python3
"""`earshot vad`'s segments beside Silero's own speech timestamps, both scored against a corpus's labels.

    .earshot/venv/bin/python Benchmarks/vad/timestamps.py corpora/build/noisy [-- --profile cutting]
    # the fixture SmoothingProfileTests reads: Silero's timestamps of the parity fixture's probabilities
    .earshot/venv/bin/python Benchmarks/vad/timestamps.py --fixture > Tests/EarshotVADTests/Fixtures/silero_timestamps.json

Silero's timestamps: the silero-vad model's probabilities from ONNX Runtime, streamed as Silero's
wrapper streams them (`silero_reference.probabilities`), turned into segments by Silero's
`get_speech_timestamps` as faster-whisper 1.2.1 carries it (`faster_whisper.vad`; `make whisper-reference`
installs it), with Silero's own defaults: threshold 0.5, end below 0.35, speech of at least 250 ms,
silences of at least 100 ms, 30 ms of padding. faster-whisper's module is only given our probabilities:
its own model is not run.

Earshot's segments: `earshot vad --out DIR` (any options after `--`), the `.csv` files only (the `.prob`
files would be smoothed again by eval). Both folders are scored by `earshot eval --predictions`, the
same code, on the 10 ms grid: frame precision, recall, F1, false-alarm rate, and the boundary biases
(predicted − labelled, + late). The last column compares the two tools frame by frame.
"""
import argparse, json, os, subprocess, sys, tempfile, wave

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import silero_reference  # noqa: E402
import faster_whisper.vad as fw_vad  # noqa: E402

SILERO_DEFAULTS = fw_vad.VadOptions(threshold=0.5, min_speech_duration_ms=250, min_silence_duration_ms=100,
                                    speech_pad_ms=30)


def read(path):
    with wave.open(path) as wav:
        if wav.getframerate() != 16000 or wav.getnchannels() != 1 or wav.getsampwidth() != 2:
            sys.exit(f"{path}: expected 16 kHz mono 16-bit WAV")
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def silero_segments(sess, samples, probabilities=None):
    """Silero's timestamps (seconds) from ONNX Runtime's probabilities of `samples`.

    faster-whisper pads the audio to whole 512-sample windows before calling the model, and pads a
    whole window more when the length is already a multiple of 512; the probabilities are those of
    the audio it passes, so a file of exactly N windows gets N + 1 (the last of silence)."""

    def model(padded):
        given = probabilities if probabilities is not None else silero_reference.probabilities(sess, padded)
        assert len(padded) // 512 == len(given), "one probability per 512 samples"
        return np.array(given, dtype=np.float32)

    fw_vad.get_vad_model = lambda: model
    return [(s["start"] / 16000, s["end"] / 16000) for s in fw_vad.get_speech_timestamps(samples, SILERO_DEFAULTS)]


def score(earshot, corpus, folder):
    out = subprocess.run([earshot, "eval", corpus, "--predictions", folder, "--format", "json", "--progress", "none"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def frames(segments, cells):
    grid = np.zeros(cells, dtype=bool)
    for start, end in segments:
        grid[int(round(start * 100)):int(round(end * 100))] = True
    return grid


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?")
    parser.add_argument("--fixture", action="store_true",
                        help="print Silero's timestamps of the probabilities in silero_reference.json")
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--model", help="silero_vad.onnx (default: .earshot/models/silero-vad)")
    parser.add_argument("vad_options", nargs="*", help="passed to earshot vad (after --)")
    options = parser.parse_args()
    if options.fixture:
        return fixture()
    if not options.corpus:
        parser.error("a corpus folder is needed (or --fixture)")
    manifest = [json.loads(line) for line in open(os.path.join(options.corpus, "manifest.jsonl"))]
    sess = silero_reference.session(silero_reference.model_path(options.model))
    with tempfile.TemporaryDirectory() as scratch:
        ours, theirs = os.path.join(scratch, "earshot"), os.path.join(scratch, "silero")
        os.makedirs(theirs)
        paths = [os.path.join(options.corpus, entry["path"]) for entry in manifest]
        subprocess.run([options.earshot, "vad", "--detector", "silero", "--progress", "none", "--out", ours,
                        *options.vad_options, *paths], check=True)
        agree = cells_total = 0
        for entry, path in zip(manifest, paths):
            stem = os.path.splitext(os.path.basename(entry["path"]))[0]
            os.remove(os.path.join(ours, stem + ".prob"))
            segments = silero_segments(sess, read(path))
            with open(os.path.join(theirs, stem + ".csv"), "w") as f:
                f.write("start,end\n" + "".join(f"{s:.3f},{e:.3f}\n" for s, e in segments))
            with open(os.path.join(ours, stem + ".csv")) as f:
                mine = [tuple(map(float, line.split(","))) for line in f.read().splitlines()[1:] if line]
            cells = int(round(entry["duration_s"] * 100))
            agree += int(np.sum(frames(mine, cells) == frames(segments, cells)))
            cells_total += cells
        rows = {"earshot vad " + " ".join(options.vad_options): score(options.earshot, options.corpus, ours),
                "silero get_speech_timestamps": score(options.earshot, options.corpus, theirs)}
    print(f"{options.corpus}: {len(manifest)} files; frames where both tools agree: {agree / cells_total:.3f}")
    print(f"{'':40} {'F1':>6} {'prec':>6} {'recall':>6} {'FA':>6} {'start bias':>10} {'end bias':>9}")
    for name, report in rows.items():
        f = report_frames(report)
        print(f"{name:40} {f['f1']:6.3f} {f['precision']:6.3f} {f['recall']:6.3f} {f['false_alarm_rate']:6.3f} "
              f"{f['start_bias_ms']:8.0f}ms {f['end_bias_ms']:7.0f}ms")


def fixture():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "Tests/EarshotVADTests/Fixtures/silero_reference.json")) as f:
        reference = json.load(f)
    recordings = []
    for recording in reference["recordings"]:
        samples = np.zeros(recording["samples"], dtype=np.float32)  # only the length is read
        segments = silero_segments(None, samples, recording["probabilities"])
        recordings.append({"path": recording["path"],
                           "segments": [[round(s, 4), round(e, 4)] for s, e in segments]})
    options = {"threshold": SILERO_DEFAULTS.threshold, "min_speech_duration_ms": SILERO_DEFAULTS.min_speech_duration_ms,
               "min_silence_duration_ms": SILERO_DEFAULTS.min_silence_duration_ms,
               "speech_pad_ms": SILERO_DEFAULTS.speech_pad_ms}
    json.dump({"schema_version": 1, "source": "get_speech_timestamps (faster_whisper.vad) of silero_reference.json",
               "options": options, "recordings": recordings}, sys.stdout, indent=1)
    print()


def report_frames(report):
    """The one detector row of an eval JSON report, as flat figures."""
    detector = report["detectors"][0]
    boundaries = detector["boundaries"]
    return detector["frames"] | {"start_bias_ms": boundaries["start"]["bias_s"] * 1000,
                                 "end_bias_ms": boundaries["end"]["bias_s"] * 1000}


if __name__ == "__main__":
    main()
