#!/usr/bin/env python3
"""How late the service's speech detector first finds speech in labelled recordings: the evidence for
`earshot serve --max-initial-silence` (a request with no speech found in that many seconds of audio
ends as "No Speech"). For each corpus and detector, runs `earshot vad` with the smoothing the service
uses (`--profile cutting`) and reports, over the utterances whose labels hold speech, when the first
speech segment starts, and how many the detector misses entirely.

    python3 Benchmarks/service/initial_silence.py corpora/build/noisy corpora/build/real
"""
import json
import os
import statistics
import subprocess
import sys

EARSHOT = os.environ.get("EARSHOT", ".build/release/earshot")


def first_speech(corpus, detector):
    entries = [json.loads(line) for line in open(os.path.join(corpus, "manifest.jsonl"))]
    entries = [e for e in entries if e.get("speech")]
    paths = [os.path.join(corpus, e["path"]) for e in entries]
    run = subprocess.run(
        [EARSHOT, "vad", "--detector", detector, "--profile", "cutting", "--format", "json", *paths],
        capture_output=True, text=True, check=True)
    found = {os.path.normpath(f["path"]): f["segments"] for f in json.loads(run.stdout)["files"]}
    rows = []
    for entry, path in zip(entries, paths):
        segments = found[os.path.normpath(path)]
        rows.append((entry["speech"][0]["start_s"], segments[0]["start_s"] if segments else None))
    return rows


def main():
    print("corpus | detector | utterances | labelled first speech, max | detector's first speech: median, max | missed")
    for corpus in sys.argv[1:]:
        for detector in ("silero", "spectral"):
            rows = first_speech(corpus, detector)
            starts = [found for _, found in rows if found is not None]
            missed = sum(1 for _, found in rows if found is None)
            print(f"{os.path.basename(corpus)} | {detector} | {len(rows)} | {max(l for l, _ in rows):.2f} s | "
                  f"{statistics.median(starts):.2f} s, {max(starts):.2f} s | {missed}")


if __name__ == "__main__":
    main()
