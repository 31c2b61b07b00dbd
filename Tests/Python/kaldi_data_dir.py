"""Checks a Kaldi data directory as Kaldi's tools would read it, then prints JSON
{utterance id: [recording id, start, end, samples read, sample rate]}. Used by VADCommandTests.

The audio is read with kaldiio (PyPI), which cuts each utterance of `segments` out of its `wav.scp`
recording as Kaldi's extract-segments does. The rules are those utils/validate_data_dir.sh
(--no-text --no-feats) enforces on these files: every file sorted by its first field in the C locale
with unique keys, ids without whitespace, `segments` with four fields and start < end on recordings
that wav.scp lists, and spk2utt what utils/utt2spk_to_spk2utt.pl makes of utt2spk."""
import json
import os
import sys

import kaldiio

directory = sys.argv[1]


def fail(message):
    sys.exit(f"{directory}: {message}")


def lines(name):
    with open(os.path.join(directory, name), encoding="utf-8") as f:
        rows = [line.rstrip("\n") for line in f]
    keys = [row.split(None, 1)[0] for row in rows]
    encoded = [key.encode() for key in keys]
    if encoded != sorted(set(encoded)):
        fail(f"{name}: not sorted (C locale) with unique keys")
    return rows


for name in ("segments", "wav.scp", "utt2spk", "spk2utt"):
    if not os.path.isfile(os.path.join(directory, name)):
        fail(f"{name} is missing")

recordings = {}
for row in lines("wav.scp"):
    key, path = row.split(None, 1)
    recordings[key] = path
segments = {}
for row in lines("segments"):
    fields = row.split()
    if len(fields) != 4:
        fail(f"segments: {row!r} has {len(fields)} fields; expected 4")
    utt, rec, start, end = fields[0], fields[1], float(fields[2]), float(fields[3])
    if not start < end:
        fail(f"segments: {row!r}: start is not before end")
    if rec not in recordings:
        fail(f"segments: {row!r}: recording {rec} is not in wav.scp")
    segments[utt] = (rec, start, end)
utt2spk = [row.split() for row in lines("utt2spk")]
if any(len(fields) != 2 for fields in utt2spk) or [u for u, _ in utt2spk] != list(segments):
    fail("utt2spk: expected one 'utt spk' line per utterance of segments, in its order")
speakers = {}
for utt, spk in utt2spk:
    speakers.setdefault(spk, []).append(utt)
expected = [" ".join([spk] + utts) for spk, utts in speakers.items()]
if lines("spk2utt") != expected:
    fail("spk2utt: is not what utt2spk_to_spk2utt.pl makes of utt2spk")

report = {}
audio = kaldiio.load_scp(os.path.join(directory, "wav.scp"), segments=os.path.join(directory, "segments"))
for utt, (rate, samples) in audio.items():
    rec, start, end = segments[utt]
    report[utt] = [rec, start, end, len(samples), rate]
if list(report) != list(segments):
    fail("kaldiio did not read every utterance of segments")
print(json.dumps(report))
