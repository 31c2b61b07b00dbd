#!/usr/bin/env python3
"""WER of each embedded recognizer with and without a custom language model, on the model's own domain.

Builds a SpokenWord-style data file (--data, default Examples/language-models/chess.json, the seed's
chess moves) with `earshot lm build`, speaks a test set with `earshot speak` — every exact phrase of the
data, then --texts expansions drawn across all its template groups' templates (each template's share
in proportion to its count; each slot filled at random from its class) — by --voices at --rates, mixes
each file with pink noise at about 10 dB SNR with sox, and transcribes every set with
`earshot transcribe` without and with `--language-model`, for PocketSphinx and Whisper. The LibriVox
clips of pocketsphinx-testdata show what the general domain loses with the model on. With the default
data, seed and --texts (--moves) 13, the texts and file names are those of the former chess_wer.py.

    python3 Benchmarks/language-models/domain_wer.py [--earshot .build/release/earshot] [--work /tmp/chess-wer]
    python3 Benchmarks/language-models/domain_wer.py --data Examples/language-models/pharmacy.json \
        --voices rms,awb,en-gb-x-rp --save-json /tmp/pharmacy.json

--save-json writes every configuration's per-file references and hypotheses; --extra-flag passes an
option to every `transcribe` that uses the model (repeat it: --extra-flag=--vocabulary-bonus
--extra-flag=3); --faster-whisper PYTHON also transcribes each set with faster-whisper's tiny.en (the
CTranslate2 model under .earshot/models), without a prompt and with the hand-written prompt of
FASTER_WHISPER_PROMPTS, for comparison.
"""
import argparse, json, os, random, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

# Prompts a faster-whisper user would write by hand for each data set (by the data file's name), the
# yardstick the issue compares the custom model with. Not part of the data files' schema.
FASTER_WHISPER_PROMPTS = {
    "chess": "Chess moves and openings: Play the Albin Counter Gambit. Play the Winawer Variation. "
             "Play the Tartakower. Pawn to king bishop 4. Knight to queen rook 3. Queen to king knight 5.",
    "chess-openings": "Chess openings and moves: Play the Najdorf Sicilian. Answer with the Caro-Kann. "
                      "Try the Nimzo-Indian, the Grunfeld, the Alekhine, the Pirc, the Catalan. "
                      "Bishop takes on f 7. Knight to d 5. Castle kingside.",
    "pharmacy": "Pharmacy orders: Refill the Xarelto. Dispense 30 tablets of metoprolol 50 milligrams. "
                "Switch from Eliquis to Brilinta. Check Entresto, Jardiance, Farxiga, Tresiba and "
                "levothyroxine with the prescriber.",
}

FASTER_WHISPER = r"""
import json, sys
from faster_whisper import WhisperModel
model_dir, prompt, files = sys.argv[1], sys.argv[2] or None, sys.argv[3:]
model = WhisperModel(model_dir, device="cpu", compute_type="default", cpu_threads=2)
out = {}
for path in files:
    segments, _ = model.transcribe(path, language="en", beam_size=5, initial_prompt=prompt)
    out[path] = " ".join(s.text.strip() for s in segments)
json.dump(out, sys.stdout)
"""


class Rate:
    """A word error rate as the tables print it: with the number of files the recognizer failed on
    (counted as empty transcripts), if any."""
    def __init__(self, value, failed=0):
        self.value, self.failed = value, failed

    def __str__(self):
        return f"{self.value:.3f}" + (f" ({self.failed} files failed)" if self.failed else "")


def ratio(rates):
    """The second rate over the first, as the tables print it."""
    return f"{rates[1].value / rates[0].value:.2f}" if rates[0].value else "—"


def words(text):
    out = []
    for token in text.lower().replace(",", " ").replace(".", " ").replace("?", " ").replace("!", " ").split():
        token = token.strip("'\"-;:")
        if token.isdigit() and len(token) == 1:
            token = NUMBERS[int(token)]
        if token:
            out.append(token)
    return out


def errors(reference, hypothesis):
    r, h = words(reference), words(hypothesis)
    row = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        previous, row[0] = row[0], i
        for j in range(1, len(h) + 1):
            current = min(row[j] + 1, row[j - 1] + 1, previous + (r[i - 1] != h[j - 1]))
            previous, row[j] = row[j], current
    return row[len(h)], len(r)


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)}: {result.stderr}")
    return result


def test_texts(data, seed, count):
    """The exact phrases, then `count` template expansions. Templates take turns in proportion to their
    counts (smooth weighted round robin: no random draw, so one template alone leaves the generator's
    sequence as the chess script had it); each slot, class by class in the data's order, takes a random
    member of its class."""
    generator = random.Random(seed)
    texts = [p["phrase"] for p in data.get("phrases", [])]
    templates = [(group["classes"], t["template"], t["count"])
                 for group in data.get("templates", []) for t in group["templates"]]
    if not templates:
        return texts
    total = sum(weight for _, _, weight in templates)
    credit = [0] * len(templates)
    for _ in range(count):
        for index, (_, _, weight) in enumerate(templates):
            credit[index] += weight
        chosen = max(range(len(templates)), key=lambda index: credit[index])
        credit[chosen] -= total
        classes, text, _ = templates[chosen]
        for name, members in classes.items():
            while f"<{name}>" in text:
                text = text.replace(f"<{name}>", generator.choice(members), 1)
        texts.append(text[0].upper() + text[1:])
    return texts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    parser.add_argument("--data", default=os.path.join(ROOT, "Examples/language-models/chess.json"),
                        help="SpokenWord-style training data (JSON) to build and test")
    parser.add_argument("--work", default=None, help="work directory (default: /tmp/NAME-wer, NAME the data's)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--texts", "--moves", dest="texts", type=int, default=13,
                        help="template expansions in the test set, after the exact phrases (chess: moves)")
    parser.add_argument("--voices", default="slt,kal16,en-us", help="earshot speak voices, comma-separated")
    parser.add_argument("--rates", default="1.0,1.3", help="speaking rates, comma-separated")
    parser.add_argument("--recognizers", default="pocketsphinx,whisper",
                        help="earshot recognizers to compare, comma-separated (empty: none, e.g. faster-whisper only)")
    parser.add_argument(
        "--weights", default="",
        help="PocketSphinx interpolation weights to compare (e.g. 0.05,0.1,0.2,0.5) instead of the default's table")
    parser.add_argument(
        "--bonuses", default="",
        help="Whisper vocabulary bonuses to compare (e.g. 0,0.5,1,2) instead of the default's table")
    parser.add_argument(
        "--extra-flag", action="append", default=[], metavar="ARG",
        help="an argument added to every transcribe that uses the model (repeatable, in order: "
             "--extra-flag=--vocabulary-bonus --extra-flag=3)")
    parser.add_argument("--save-json", metavar="PATH",
                        help="write every configuration's per-file references and hypotheses here")
    parser.add_argument("--faster-whisper", metavar="PYTHON",
                        help="a Python with faster-whisper: also transcribe with its tiny.en, unprompted and "
                             "with the data's hand-written prompt")
    parser.add_argument("--faster-whisper-model", default=os.path.join(ROOT, ".earshot/models/whisper-tiny.en"))
    args = parser.parse_args()
    earshot = args.earshot
    data_path = os.path.abspath(args.data)
    name = os.path.splitext(os.path.basename(data_path))[0]
    args.work = args.work or f"/tmp/{name}-wer"
    os.makedirs(args.work, exist_ok=True)
    data = json.load(open(data_path))
    model = os.path.join(args.work, f"{name}-lm")
    run([earshot, "lm", "build", data_path, "--output", model])

    texts = test_texts(data, args.seed, args.texts)
    voices, rates = args.voices.split(","), args.rates.split(",")
    references = {}
    for condition in ["clean", "noisy"]:
        os.makedirs(os.path.join(args.work, condition), exist_ok=True)
    for index, text in enumerate(texts):
        for voice in voices:
            for rate in rates:
                file = f"{index:02d}-{voice}-{rate}"
                clean = os.path.join(args.work, "clean", file + ".wav")
                run([earshot, "speak", "--voice", voice, "--rate", rate, text, "-o", clean])
                noisy = os.path.join(args.work, "noisy", file + ".wav")
                noise = os.path.join(args.work, "noise.wav")
                level = float(run(["sox", clean, "-n", "stat"]).stderr.split("RMS     amplitude:")[1].split()[0])
                seconds = run(["soxi", "-D", clean]).stdout.strip()
                run(["sox", "-R", "-n", "-r", "16000", "-b", "16", "-c", "1", noise, "synth", seconds, "pinknoise",
                     "vol", f"{level / 3.16:.6f}"])
                run(["sox", "-R", "-m", clean, noise, noisy])
                references[file] = text
    librivox = {}
    for line in open(os.path.join(LIBRIVOX, "transcription")):
        text, _, clip = line.strip().rpartition(" (")
        librivox[os.path.join(LIBRIVOX, clip.rstrip(")") + ".wav")] = text.replace("<s>", "").replace("</s>", "")

    saved = {"data": data_path, "seed": args.seed, "texts": texts, "voices": voices, "rates": rates,
             "extra_flags": args.extra_flag, "configurations": []}

    def record(recognizer, label, settings, result):
        pairs, failed = result
        counted = [errors(r, h) for _, r, h in pairs]
        rate = sum(e for e, _ in counted) / sum(n for _, n in counted)
        if args.save_json:
            saved["configurations"].append({
                "recognizer": recognizer, "set": label, "settings": settings, "wer": round(rate, 4),
                "errors": sum(e for e, _ in counted), "words": sum(n for _, n in counted), "failed": failed,
                "files": [{"name": n, "reference": r, "hypothesis": h, "errors": e, "words": w}
                          for (n, r, h), (e, w) in zip(pairs, counted)]})
            with open(args.save_json, "w") as out:
                json.dump(saved, out, indent=1, ensure_ascii=False)
        return Rate(rate, len(failed))

    print(f"{len(texts)} texts × {len(voices)} voices × {len(rates)} rates = {len(references)} files per "
          f"condition; {sum(errors(t, t)[1] for t in references.values())} words")
    print(f"| recognizer | set | base WER | with {name} model | relative |")
    print("|---|---|---|---|---|")
    sets = [(f"{name} clean", "clean"), (f"{name} noisy", "noisy"), ("LibriVox clips", None)]
    sweeps = [("pocketsphinx", "PocketSphinx weight", "--language-model-weight", args.weights),
              ("whisper", "Whisper vocabulary bonus", "--vocabulary-bonus", args.bonuses)]
    flags = "".join(f.strip("-").replace("/", "_") for f in args.extra_flag)
    for recognizer, title, option, values in sweeps:
        if not values:
            continue
        values = values.split(",")
        print(f"\n| {title} | " + " | ".join(label for label, _ in sets) + " |")
        print("|---|" + "---|" * len(sets))
        for value in ["none"] + values:
            extra = [] if value == "none" else ["--language-model", model, option, value] + args.extra_flag
            tag = f"{option}{value}" + ("" if value == "none" else flags)
            rates_ = [record(recognizer, label, extra,
                             transcribe(args, earshot, recognizer, condition, extra, references, librivox, tag))
                      for label, condition in sets]
            print(f"| {value} | " + " | ".join(str(r) for r in rates_) + " |", flush=True)
    if args.weights or args.bonuses:
        return
    for recognizer in [r for r in args.recognizers.split(",") if r]:
        for label, condition in sets:
            rates_ = []
            for custom in [False, True]:
                extra = ["--language-model", model] + args.extra_flag if custom else []
                tag = str(custom) + (flags if custom else "")
                result = transcribe(args, earshot, recognizer, condition, extra, references, librivox, tag)
                rates_.append(record(recognizer, label, extra, result))
            print(f"| {recognizer} | {label} | {rates_[0]} | {rates_[1]} | {ratio(rates_)} |",
                  flush=True)
    if args.faster_whisper:
        prompt = FASTER_WHISPER_PROMPTS.get(name)
        if prompt is None:
            print(f"\n(no hand-written prompt for {name} in FASTER_WHISPER_PROMPTS; faster-whisper skipped)")
            return
        print(f"\n| faster-whisper tiny.en | set | no prompt | hand-written prompt | relative |")
        print("|---|---|---|---|---|")
        for label, condition in sets:
            rates_ = []
            for text in ["", prompt]:
                pairs = faster_whisper(args, condition, text, references, librivox)
                rates_.append(record("faster-whisper", label, ["--initial-prompt", text] if text else [], (pairs, [])))
            print(f"| faster-whisper | {label} | {rates_[0]} | {rates_[1]} | {ratio(rates_)} |",
                  flush=True)


def transcribe(args, earshot, recognizer, condition, extra, references, librivox, tag):
    """(name, reference, hypothesis) of every file of one set (None: the LibriVox clips) transcribed by
    one recognizer and setting, and the names of the files it failed on. When the batch fails (a crash),
    each file it left without a transcript is transcribed alone; one that fails alone too counts as
    an empty transcript (all its words deleted) and is named on standard error."""
    if condition:
        out = os.path.join(args.work, f"out-{recognizer}-{condition}-{tag}")
        paths = {n: os.path.join(args.work, condition, n + ".wav") for n in sorted(references)}
        wanted = references
    else:
        out = os.path.join(args.work, f"out-{recognizer}-librivox-{tag}")
        paths = {os.path.basename(p)[:-4]: p for p in librivox}
        wanted = {os.path.basename(p)[:-4]: r for p, r in librivox.items()}
    os.makedirs(out, exist_ok=True)
    for stale in os.listdir(out):
        os.remove(os.path.join(out, stale))
    command = [earshot, "transcribe", "--recognizer", recognizer, "--output-dir", out] + extra
    result = subprocess.run(command + list(paths.values()), capture_output=True, text=True)
    failed = []
    if result.returncode != 0:
        print(f"({' '.join(command)} …: exit status {result.returncode}; transcribing the rest one by one)",
              file=sys.stderr, flush=True)
        for n, path in paths.items():
            if os.path.exists(os.path.join(out, n + ".txt")):
                continue
            alone = subprocess.run(command + [path], capture_output=True, text=True)
            if alone.returncode != 0:
                failed.append(n)
                print(f"  {n}: exit status {alone.returncode}", file=sys.stderr, flush=True)
    pairs = []
    for n in paths:
        text = os.path.join(out, n + ".txt")
        pairs.append((n, wanted[n], open(text).read() if os.path.exists(text) else ""))
    return pairs, failed


def faster_whisper(args, condition, prompt, references, librivox):
    """As transcribe, by faster-whisper's tiny.en with `prompt` as its initial prompt (none if empty)."""
    if condition:
        paths = {n: os.path.join(args.work, condition, n + ".wav") for n in references}
        wanted = {n: references[n] for n in references}
    else:
        paths = {os.path.basename(p)[:-4]: p for p in librivox}
        wanted = {os.path.basename(p)[:-4]: r for p, r in librivox.items()}
    result = run([args.faster_whisper, "-c", FASTER_WHISPER, args.faster_whisper_model, prompt]
                 + list(paths.values()))
    texts = json.loads(result.stdout)
    return [(n, wanted[n], texts[paths[n]]) for n in paths]


if __name__ == "__main__":
    main()
