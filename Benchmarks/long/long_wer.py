#!/usr/bin/env python3
"""Word error rate and speed of `earshot transcribe` on the long corpus, against the same recognizer on
the original short clips. Standard library only.

For each recording of the corpus (`earshot corpus build long`), runs `earshot transcribe --format json`
and scores its text against the manifest's transcript. Hypothesis words are also assigned to the clip
they were spoken in (by time: each clip owns the stretch from the middle of the pause before it to the
middle of the pause after it), so the long-file WER can be broken down by source. The baseline is each
distinct clip transcribed on its own (`earshot transcribe CLIP`, a fresh decoder per clip, as
`pocketsphinx_continuous` decodes a file), weighted by how often the clip occurs in the recordings.

    python3 Benchmarks/long/long_wer.py --earshot .build/release/earshot --corpus corpora/build/long --jobs 2

`--recognizer pocketsphinx --decoder balanced` (any earshot transcribe option after `--`) applies to every run,
long and short: `... --jobs 2 -- --recognizer pocketsphinx`.
"""
import argparse
import json
import re
import subprocess
import sys
import time

DATA = "/usr/share/pocketsphinx/test/data"


def words(text):
    """Lowercase words, letters and digits, apostrophes inside words kept (as EarshotLab.WordErrorRate)."""
    return re.findall(r"[0-9a-z]+(?:['’][0-9a-z]+)*", text.lower())


def errors(reference, hypothesis):
    """Levenshtein distance over words (substitutions + deletions + insertions)."""
    previous = list(range(len(hypothesis) + 1))
    for i, r in enumerate(reference, 1):
        current = [i] + [0] * len(hypothesis)
        for j, h in enumerate(hypothesis, 1):
            current[j] = min(previous[j - 1] + (r != h), previous[j] + 1, current[j - 1] + 1)
        previous = current
    return previous[-1]


def transcriptions():
    """Clip id -> (path, extra earshot arguments, reference words), as the real corpus recipe reads them."""
    clips = {}
    for path, prefix, folder in [
        (f"{DATA}/librivox/transcription", "", "librivox"),
        (f"{DATA}/cards/cards.transcription", "cards-", "cards"),
    ]:
        for line in open(path):
            match = re.match(r"\s*(.*?)\s*\((\S+)\)\s*$", line)
            if match:
                text = match.group(1).replace("<s>", "").replace("</s>", "")
                clips[prefix + match.group(2)] = (f"{DATA}/{folder}/{match.group(2)}.wav", [], words(text))
    clips["goforward"] = (f"{DATA}/goforward.raw", ["--rate", "16000"], words("go forward ten meters"))
    return clips


def transcribe(earshot, path, arguments):
    started = time.monotonic()
    out = subprocess.run([earshot, "transcribe", "--format", "json", *arguments, path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.monotonic() - started


def source_of(clip_id):
    return "cards" if clip_id.startswith("cards-") else "goforward" if clip_id == "goforward" else "librivox"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--corpus", default="corpora/build/long")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("transcribe_options", nargs="*", help="passed to every earshot transcribe (after --)")
    options = parser.parse_args()

    clips = transcriptions()
    manifest = [json.loads(line) for line in open(f"{options.corpus}/manifest.jsonl")]
    totals = {"long": [0, 0], "baseline": [0, 0]}
    by_source = {}
    occurrences = {}
    audio_s = wall_s = 0.0
    for entry in manifest:
        document, seconds = transcribe(options.earshot, f"{options.corpus}/{entry['path']}",
                                       ["--jobs", options.jobs, *options.transcribe_options])
        audio_s += entry["duration_s"]
        wall_s += seconds
        reference = words(entry["transcript"])
        hypothesis = words(document["text"])
        totals["long"][0] += errors(reference, hypothesis)
        totals["long"][1] += len(reference)
        # Clip instances: their labelled words, in order, by each clip's word count.
        labelled = entry["words"]
        spans, position = [], 0
        for clip_id in entry["tags"]["clips"].split(","):
            count = len(clips[clip_id][2])
            spans.append((clip_id, labelled[position]["start_s"], labelled[position + count - 1]["end_s"]))
            occurrences[clip_id] = occurrences.get(clip_id, 0) + 1
            position += count
        assert position == len(labelled), "the clips tag and the labelled words disagree"
        heard = [(w["word"], (w["start_s"] + w["end_s"]) / 2) for w in document["words"]]
        for index, (clip_id, start, end) in enumerate(spans):
            lower = (spans[index - 1][2] + start) / 2 if index > 0 else -1
            upper = (end + spans[index + 1][1]) / 2 if index + 1 < len(spans) else float("inf")
            said = [w for w, middle in heard if lower <= middle < upper]
            tally = by_source.setdefault(source_of(clip_id), [0, 0])
            tally[0] += errors(clips[clip_id][2], words(" ".join(said)))
            tally[1] += len(clips[clip_id][2])

    baseline_by_source = {}
    for clip_id, count in sorted(occurrences.items()):
        path, arguments, reference = clips[clip_id]
        document, _ = transcribe(options.earshot, path, [*arguments, *options.transcribe_options])
        wrong = errors(reference, words(document["text"]))
        totals["baseline"][0] += wrong * count
        totals["baseline"][1] += len(reference) * count
        tally = baseline_by_source.setdefault(source_of(clip_id), [0, 0])
        tally[0] += wrong * count
        tally[1] += len(reference) * count

    def rate(tally):
        return round(tally[0] / tally[1], 3) if tally[1] else None

    summary = {
        "recordings": len(manifest), "transcribe_options": options.transcribe_options, "audio_s": round(audio_s, 1), "jobs": int(options.jobs),
        "wall_s": round(wall_s, 1), "real_time_factor": round(wall_s / audio_s, 3),
        "wer_long": rate(totals["long"]), "errors_long": totals["long"],
        "wer_short_clips": rate(totals["baseline"]), "errors_short_clips": totals["baseline"],
        "wer_long_by_source": {k: rate(v) for k, v in sorted(by_source.items())},
        "wer_short_clips_by_source": {k: rate(v) for k, v in sorted(baseline_by_source.items())},
    }
    json.dump(summary, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
