#!/usr/bin/env python3
"""PocketSphinx with and without its flat-lexicon second pass (-fwdflat), on the long corpus.

Cuts each recording where `earshot transcribe` cuts it, decodes every segment with flat_pass.c (one
decoder per setting, carrying its cepstral mean from segment to segment, as `transcribe --jobs 1`),
the two settings side by side on the two cores, and reports for each: WER against the manifest
(a labelled word belongs to the segment holding its midpoint), the work left when an utterance ends
(ps_end_utt: median, p95, max) and the decoding CPU.

    python3 Benchmarks/recognizer/flat_pass.py --corpus corpora/build/long
    python3 Benchmarks/recognizer/flat_pass.py --corpus corpora/build/long --only long-001 --through-speex

--through-speex first codes each recording with `speexenc -w --quality 4 --vbr` and `speexdec`, as a
client uploading Speex wideband would. Needs gcc, libpocketsphinx-dev, sox (and speex for that option).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def edits(reference, hypothesis):
    row = list(range(len(hypothesis) + 1))
    for i in range(1, len(reference) + 1):
        previous, row[0] = row[:], i
        for j in range(1, len(hypothesis) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (reference[i - 1] != hypothesis[j - 1]))
    return row[len(hypothesis)]


def run(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--corpus", default="corpora/build/long")
    parser.add_argument("--only", help="a recording's name (e.g. long-001) to measure alone")
    parser.add_argument("--through-speex", action="store_true")
    args = parser.parse_args()

    entries = [json.loads(line) for line in open(os.path.join(args.corpus, "manifest.jsonl"))]
    if args.only:
        entries = [e for e in entries if os.path.basename(e["path"]).startswith(args.only)]
    if not entries:
        sys.exit(f"flat_pass.py: no recording in {args.corpus}/manifest.jsonl" + (f" named {args.only}" if args.only else ""))
    work = tempfile.mkdtemp(prefix="earshot-flat-pass-")
    decoder = os.path.join(work, "flat_pass")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "pocketsphinx", "sphinxbase"],
                           check=True, capture_output=True, text=True).stdout.split()
    run(["gcc", "-O2", os.path.join(HERE, "flat_pass.c"), "-o", decoder] + flags)

    segments = []  # (wav path, reference words)
    for number, entry in enumerate(entries):
        audio = os.path.join(args.corpus, entry["path"])
        if args.through_speex:
            coded = os.path.join(work, f"r{number}.spx")
            run(["speexenc", "-w", "--quality", "4", "--vbr", audio, coded], stderr=subprocess.DEVNULL)
            audio = os.path.join(work, f"r{number}.wav")
            run(["speexdec", coded, audio], stderr=subprocess.DEVNULL)
        document = json.loads(run([args.earshot, "transcribe", "--format", "json", "--jobs", "2",
                                   os.path.join(args.corpus, entry["path"])], capture_output=True).stdout)
        for index, segment in enumerate(document["segments"]):
            if not segment["recognized"]:
                continue
            path = os.path.join(work, f"r{number}-{index:03d}.wav")
            run(["sox", audio, "-r", "16000", "-b", "16", "-c", "1", path, "trim", str(segment["start_s"]),
                 "=" + str(segment["end_s"])], stderr=subprocess.DEVNULL)
            words = [w["word"] for w in entry["words"]
                     if segment["start_s"] <= (w["start_s"] + w["end_s"]) / 2 < segment["end_s"]]
            segments.append((path, words))

    paths = [path for path, _ in segments]
    jobs = {setting: subprocess.Popen([decoder, setting] + paths, stdout=subprocess.PIPE, text=True)
            for setting in ("yes", "no")}
    report = {"segments": len(segments), "words": sum(len(w) for _, w in segments),
              "through_speex": args.through_speex}
    for setting, job in jobs.items():
        rows = [line.rstrip("\n").split("\t") for line in job.stdout]
        if job.wait() != 0 or len(rows) != len(segments):
            sys.exit(f"flat_pass.py: the decoder failed with -fwdflat {setting}")
        errors = sum(edits(words, row[3].split()) for (_, words), row in zip(segments, rows))
        ends = sorted(float(row[2]) for row in rows)
        report[f"fwdflat_{setting}"] = {
            "wer": round(errors / report["words"], 4),
            "end_of_utterance_s": {"median": round(statistics.median(ends), 3),
                                   "p95": round(ends[max(0, int(0.95 * len(ends)) - 1)], 3),
                                   "max": round(ends[-1], 3)},
            "decoding_cpu_s": round(sum(float(row[1]) + float(row[2]) for row in rows), 1),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
