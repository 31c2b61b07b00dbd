#!/usr/bin/env python3
"""Text to Speech, read back: how intelligible each voice is to Earshot's own recognizers.

Speaks every sentence of a set (one per line; `sentences-a.txt` chose the default voice, `sentences-b.txt`
confirms it — 100 sentences each, written for Earshot in the style of the Harvard lists) with each voice
through `earshot speak`, transcribes each voice's files with `earshot transcribe --recognizer R`
(one process per voice and recognizer, `--jobs 1`), and prints, per voice, the word error rate (edit
distance over reference words, after lower-casing, dropping punctuation and spelling hyphens as spaces)
and the synthesis speed: the set spoken as a few long texts by one `earshot speak` process each, their
audio seconds over those processes' CPU seconds (× real time on one core; synthesis runs on one thread,
and a process's start-up is a small share of a long text).

    python3 Benchmarks/tts/round_trip.py [--binary .build/release/earshot] [--voices slt,rms,...]
        [--recognizers whisper,pocketsphinx] Benchmarks/tts/sentences-a.txt [more sets]

Whisper (the default recognizer) by default; the two sets can run as two processes side by side.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import wave

parser = argparse.ArgumentParser()
parser.add_argument("sets", nargs="+")
parser.add_argument("--binary", default=".build/release/earshot")
parser.add_argument("--voices", default="slt,rms,awb,kal16,en-us")
parser.add_argument("--recognizers", default="whisper")
options = parser.parse_args()
binary = os.path.abspath(options.binary)


def words(text):
    return re.sub(r"[^a-z' ]", " ", text.lower().replace("-", " ")).split()


def distance(reference, hypothesis):
    row = list(range(len(hypothesis) + 1))
    for i, word in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[-1]


def seconds(path):
    with wave.open(path) as audio:
        return audio.getnframes() / audio.getframerate()


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


print("| set | voice | engine | recognizer | sentences | words | WER % | synthesis × real time (one core) |")
print("|---|---|---|---|---:|---:|---:|---:|")
engines = {}
for line in subprocess.run([binary, "speak", "--list-voices"], capture_output=True, text=True, check=True).stdout.splitlines():
    name, engine = line.split("\t")[:2]
    engines.setdefault(name, engine)
for sentence_set in options.sets:
    sentences = [line.strip() for line in open(sentence_set) if line.strip()]
    for voice in options.voices.split(","):
        with tempfile.TemporaryDirectory() as scratch:
            # Speed: the set as a few long texts (each within the 4 096-character limit), one process each.
            groups, audio, before = [[]], 0.0, child_cpu()
            for sentence in sentences:
                if sum(len(s) + 1 for s in groups[-1]) + len(sentence) > 4_000:
                    groups.append([])
                groups[-1].append(sentence)
            for number, group in enumerate(groups):
                whole = os.path.join(scratch, f"whole-{number}.wav")
                subprocess.run([binary, "speak", "--voice", voice, "-o", whole], input=" ".join(group),
                               text=True, check=True)
                audio += seconds(whole)
            speed = audio / max(child_cpu() - before, 1e-3)
            files = []
            for index, sentence in enumerate(sentences):
                path = os.path.join(scratch, f"{index:03d}.wav")
                subprocess.run([binary, "speak", "--voice", voice, sentence, "-o", path], check=True)
                files.append(path)
            for recognizer in options.recognizers.split(","):
                out = os.path.join(scratch, recognizer)
                subprocess.run([binary, "transcribe", "--recognizer", recognizer, "--jobs", "1", "--format", "json",
                                "--output-dir", out, *files], check=True, stderr=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL)
                errors = total = 0
                for index, sentence in enumerate(sentences):
                    text = json.load(open(os.path.join(out, f"{index:03d}.json"))).get("text", "")
                    reference = words(sentence)
                    errors += distance(reference, words(text))
                    total += len(reference)
                print(f"| {os.path.basename(sentence_set)} | {voice} | {engines.get(voice, '?')} | {recognizer} | "
                      f"{len(sentences)} | {total} | {100 * errors / total:.1f} | {speed:.0f}× |", flush=True)
