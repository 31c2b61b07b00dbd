#!/usr/bin/env python3
"""How much audio after the speaker's pause the final decode begun at that pause should hear: word error rate of
`earshot transcribe --encoder-window fitted` (what the live early decode uses) on each recording cut at its last
speech end plus a trail of T seconds, against the whole recording (what a decode at the endpoint hears).

The last speech end is where the service's pause watch finds it: `earshot vad --profile cutting` (Silero and the
smoothing the service runs, its 50 ms hangover included), the end of the last segment. A recording is cut with
Python's wave module (no resampling; the corpora are 16 kHz mono).

Sets (words scored as wer.py scores them):
  - real: the `real` corpus (`earshot corpus build real`), where the trail is chosen;
  - synthetic: `earshot corpus build synthetic` (eSpeak NG and Flite voices, exact labels), which takes no part
    in the choice.

    python3 Benchmarks/whisper/pause_trail.py --corpus corpora/build/real --trail 0.15 0.25 0.35 0.5 end --show
    python3 Benchmarks/whisper/pause_trail.py --corpus /tmp/syn --trail 0.25 0.35 end
"""
import argparse, json, os, subprocess, sys, tempfile, wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wer import corpus, errors, words  # noqa: E402  (the same scoring as the other Whisper figures)


def last_speech_end(binary, path):
    out = subprocess.run([binary, "vad", "--profile", "cutting", "--format", "json", path],
                         check=True, capture_output=True, text=True).stdout
    segments = json.loads(out)["files"][0]["segments"]
    return segments[-1]["end_s"] if segments else None


def cut(path, seconds, folder):
    """`path`'s first `seconds` as a new WAV file in `folder`."""
    with wave.open(path) as source:
        frames = min(source.getnframes(), int(round(seconds * source.getframerate())))
        params = source.getparams()
        data = source.readframes(frames)
    target = os.path.join(folder, f"{os.path.basename(path)}-{seconds:.3f}.wav")
    with wave.open(target, "wb") as out:
        out.setparams(params)
        out.writeframes(data)
    return target


def transcribe(binary, path, extra):
    out = subprocess.run(
        [binary, "transcribe", "--format", "json", "--progress", "none", "--jobs", "1", "--encoder-window", "fitted",
         *extra, path], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["text"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--corpus", required=True, help="a corpus folder (manifest.jsonl with transcripts)")
    parser.add_argument("--trail", nargs="+", default=["0.15", "0.25", "0.35", "0.5", "end"],
                        help="seconds after the last speech end, or `end` for the whole recording")
    parser.add_argument("--show", action="store_true", help="print each transcript that differs from the last trail's")
    args, extra = parser.parse_known_args()
    recordings = corpus(args.corpus)
    ends = {path: last_speech_end(args.earshot, path) for path, _ in recordings}
    folder = tempfile.mkdtemp()
    print(f"{args.corpus}: {len(recordings)} recordings\n")
    print("| trail after the last speech end | errors / words | WER |")
    print("|---|---|---|")
    texts = {}
    for trail in args.trail:
        total_errors = total_words = 0
        for path, reference in recordings:
            if trail == "end" or ends[path] is None:
                clip = path
            else:
                clip = cut(path, ends[path] + float(trail), folder)
            text = transcribe(args.earshot, clip, extra)
            texts[(trail, path)] = text
            ref = words(reference)
            total_errors += errors(ref, words(text))
            total_words += len(ref)
        label = "whole recording" if trail == "end" else f"{float(trail):.2f} s"
        print(f"| {label} | {total_errors} / {total_words} | {total_errors / total_words:.3f} |", flush=True)
    if args.show:
        last = args.trail[-1]
        for trail in args.trail[:-1]:
            for path, _ in recordings:
                if words(texts[(trail, path)]) != words(texts[(last, path)]):
                    print(f"  {os.path.basename(path)} [{trail}]: {texts[(trail, path)].strip()}\n"
                          f"    [{last}]: {texts[(last, path)].strip()}", file=sys.stderr)


if __name__ == "__main__":
    main()
