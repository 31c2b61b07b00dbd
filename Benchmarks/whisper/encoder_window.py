#!/usr/bin/env python3
"""Whisper's encoder window, full (30 s) against fitted to the audio (`--encoder-window`): word error rate
and CPU time of `earshot transcribe --format json`, one recording at a time, one process at a time.

Sets (words scored as wer.py scores them):
  - librivox: the five LibriVox clips of pocketsphinx-testdata (71 words) — the set the rule is chosen on;
  - real: the `real` corpus (`earshot corpus build real`): the LibriVox clips again, and cards, goforward
    and the ALSA prompts, which took no part in the choice, all padded with room tone;
  - long: the `long` corpus (`earshot corpus build long`), two 10-minute recordings cut at pauses into
    utterances of up to 30 s: where the rule's margin, not its minimum, sets the window.

CPU time is the child process's user + system time (getrusage), so the machine's other load counts
little. Each run also pays the process's start-up (model loading); the start-up is measured once per
window on a second of digital silence, which Earshot does not decode, and subtracted to give the CPU of
the decodes themselves.

    python3 Benchmarks/whisper/encoder_window.py --set librivox --window full fitted:384 fitted:512 \\
        fitted:640 fitted:768 fitted:1024
    python3 Benchmarks/whisper/encoder_window.py --set real --corpus corpora/build/real --window full fitted:512 fitted:768
    python3 Benchmarks/whisper/encoder_window.py --set long --corpus corpora/build/long --window full fitted
"""
import argparse, json, os, resource, subprocess, sys, tempfile, wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wer import corpus, errors, librivox, words  # noqa: E402  (the same scoring as the other Whisper figures)


def run(binary, path, window, extra):
    """The transcript of `path` and the CPU seconds its process took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [binary, "transcribe", "--format", "json", "--progress", "none", "--jobs", "1", "--encoder-window", window,
         *extra, path], check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    document = json.loads(out)
    return document["text"], len(document.get("segments", [])), cpu


def silence():
    path = os.path.join(tempfile.mkdtemp(), "silence.wav")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\0\0" * 16000)
    return path


def clips(name, folder):
    if name == "librivox":
        return librivox()
    if not folder:
        sys.exit(f"--set {name} needs --corpus")
    return corpus(folder)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--set", choices=["librivox", "real", "long"], default="librivox")
    parser.add_argument("--corpus", help="the corpus folder (real or long)")
    parser.add_argument("--window", nargs="+", default=["full", "fitted"], help="--encoder-window values")
    parser.add_argument("--show", action="store_true", help="print each transcript that differs from full's")
    args, extra = parser.parse_known_args()
    recordings = clips(args.set, args.corpus)
    quiet = silence()
    print(f"{args.set}: {len(recordings)} recordings\n")
    print("| encoder window | errors / words | WER | CPU s per recording | decode CPU s per recording |")
    print("|---|---|---|---|---|")
    first = {}
    for window in args.window:
        startup = min(run(args.earshot, quiet, window, extra)[2] for _ in range(2))
        total_errors = total_words = 0
        total_cpu = 0.0
        for path, reference in recordings:
            text, _, cpu = run(args.earshot, path, window, extra)
            ref = words(reference)
            total_errors += errors(ref, words(text))
            total_words += len(ref)
            total_cpu += cpu
            if args.show and path in first and words(first[path]) != words(text):
                print(f"  {os.path.basename(path)} [{window}]: {text.strip()}\n    [{args.window[0]}]: {first[path].strip()}",
                      file=sys.stderr)
            first.setdefault(path, text)
        n = len(recordings)
        print(f"| {window} | {total_errors} / {total_words} | {total_errors / total_words:.3f} | "
              f"{total_cpu / n:.2f} | {(total_cpu - n * startup) / n:.2f} |", flush=True)


if __name__ == "__main__":
    main()
