#!/usr/bin/env python3
"""A corpus of one live utterance longer than Whisper's 30 s window: the five LibriVox clips and the five
card clips of pocketsphinx-testdata, each trimmed of its leading and trailing silence (sox `silence`) and
followed by 0.4 s of digital silence — shorter than any endpointer's ending silence, so a live client hears
one utterance — with 1 s of silence before and 3 s after. About 40 s, 36 s of it the utterance.

Written as `earshot corpus` writes a corpus (`manifest.jsonl` and `audio/`), for `earshot bench`:

    python3 Benchmarks/whisper/joined_clips.py --out /tmp/joined
    .build/release/earshot bench --embedded --corpus /tmp/joined --streams 1 --duration 45 \\
        --maxRecordingTime inf --json
"""
import argparse, json, os, re, subprocess, tempfile

DATA = "/usr/share/pocketsphinx/test/data"
CARDS = ["ten of clubs", "four queen of clubs", "seven of clubs", "five five",
         "eight of spades four of clubs seven of hearts"]  # cards/001–005, as `earshot corpus build real` labels them


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    texts, paths = [], []
    for line in open(os.path.join(DATA, "librivox", "transcription")):
        name = line[line.rindex("(") + 1:line.rindex(")")]
        texts.append(re.sub(r"<s>|</s>|\(.*\)", "", line).strip())
        paths.append(os.path.join(DATA, "librivox", name + ".wav"))
    texts += CARDS
    paths += [os.path.join(DATA, "cards", f"00{i}.wav") for i in range(1, 6)]
    os.makedirs(os.path.join(args.out, "audio"), exist_ok=True)
    scratch = tempfile.mkdtemp()
    parts = []
    for index, path in enumerate(paths):
        part = os.path.join(scratch, f"{index}.wav")
        subprocess.run(["sox", "-D", path, part, "silence", "1", "0.02", "0.5%", "reverse", "silence", "1", "0.02", "0.5%",
                        "reverse", "pad", "0", "0.4"], check=True)
        parts.append(part)
    lead, tail = os.path.join(scratch, "lead.wav"), os.path.join(scratch, "tail.wav")
    for path, seconds in ((lead, "1"), (tail, "3")):
        subprocess.run(["sox", "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "trim", "0", seconds], check=True)
    audio = os.path.join(args.out, "audio", "joined.wav")
    subprocess.run(["sox", "-D", lead, *parts, tail, audio], check=True)
    duration = float(subprocess.run(["soxi", "-D", audio], check=True, capture_output=True, text=True).stdout)
    entry = {"schema_version": 1, "path": "audio/joined.wav", "duration_s": round(duration, 3),
             "speech": [{"start_s": 1.0, "end_s": round(duration - 3.4, 3)}], "transcript": " ".join(texts),
             "words": [], "tags": {"source": "pocketsphinx-testdata librivox and cards, joined"}}
    with open(os.path.join(args.out, "manifest.jsonl"), "w") as manifest:
        manifest.write(json.dumps(entry) + "\n")
    print(f"{args.out}: one utterance of {duration - 4.4:.1f} s in {duration:.1f} s")


if __name__ == "__main__":
    main()
