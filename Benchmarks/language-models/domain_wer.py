#!/usr/bin/env python3
"""WER of each embedded recognizer with and without the seed's chess language model.

Builds Examples/language-models/chess.json with `earshot lm build`, speaks a chess test set with
`earshot speak` (moves drawn from the data's template classes, its three phrases, three voices of two
synthesizers, two rates), mixes each file with pink noise at about 10 dB SNR with sox, and transcribes
every set with `earshot transcribe` without and with `--language-model`, for PocketSphinx and Whisper.
The LibriVox clips of pocketsphinx-testdata show what the general domain loses with the model on.

    python3 Benchmarks/language-models/chess_wer.py [--earshot .build/release/earshot] [--work /tmp/chess-wer]
"""
import argparse, json, os, random, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    parser.add_argument("--work", default="/tmp/chess-wer")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--moves", type=int, default=13)
    parser.add_argument("--recognizers", default="pocketsphinx,whisper")
    parser.add_argument(
        "--weights", default="",
        help="PocketSphinx interpolation weights to compare (e.g. 0.05,0.1,0.2,0.5) instead of the default's table")
    parser.add_argument(
        "--bonuses", default="",
        help="Whisper vocabulary bonuses to compare (e.g. 0,0.5,1,2) instead of the default's table")
    args = parser.parse_args()
    earshot = args.earshot
    os.makedirs(args.work, exist_ok=True)
    data_path = os.path.join(ROOT, "Examples/language-models/chess.json")
    data = json.load(open(data_path))
    model = os.path.join(args.work, "chess-lm")
    run([earshot, "lm", "build", data_path, "--output", model])

    # The test set: moves drawn from the template's classes, and the exact phrases.
    generator = random.Random(args.seed)
    classes = data["templates"][0]["classes"]
    template = data["templates"][0]["templates"][0]["template"]
    texts = [p["phrase"] for p in data["phrases"]]
    for _ in range(args.moves):
        text = template
        for name, members in classes.items():
            while f"<{name}>" in text:
                text = text.replace(f"<{name}>", generator.choice(members), 1)
        texts.append(text[0].upper() + text[1:])
    references = {}
    for condition in ["clean", "noisy"]:
        os.makedirs(os.path.join(args.work, condition), exist_ok=True)
    for index, text in enumerate(texts):
        for voice in ["slt", "kal16", "en-us"]:
            for rate in ["1.0", "1.3"]:
                name = f"{index:02d}-{voice}-{rate}"
                clean = os.path.join(args.work, "clean", name + ".wav")
                run([earshot, "speak", "--voice", voice, "--rate", rate, text, "-o", clean])
                noisy = os.path.join(args.work, "noisy", name + ".wav")
                noise = os.path.join(args.work, "noise.wav")
                level = float(run(["sox", clean, "-n", "stat"]).stderr.split("RMS     amplitude:")[1].split()[0])
                seconds = run(["soxi", "-D", clean]).stdout.strip()
                run(["sox", "-R", "-n", "-r", "16000", "-b", "16", "-c", "1", noise, "synth", seconds, "pinknoise",
                     "vol", f"{level / 3.16:.6f}"])
                run(["sox", "-R", "-m", clean, noise, noisy])
                references[name] = text
    librivox = {}
    for line in open(os.path.join(LIBRIVOX, "transcription")):
        text, _, name = line.strip().rpartition(" (")
        librivox[os.path.join(LIBRIVOX, name.rstrip(")") + ".wav")] = text.replace("<s>", "").replace("</s>", "")

    print(f"{len(texts)} texts × 3 voices × 2 rates = {len(references)} files per condition; "
          f"{sum(errors(t, t)[1] for t in references.values())} words")
    print("| recognizer | set | base WER | with chess model | relative |")
    print("|---|---|---|---|---|")
    sets = [("chess clean", "clean"), ("chess noisy", "noisy"), ("LibriVox clips", None)]
    sweeps = [("pocketsphinx", "PocketSphinx weight", "--language-model-weight", args.weights),
              ("whisper", "Whisper vocabulary bonus", "--vocabulary-bonus", args.bonuses)]
    for recognizer, title, option, values in sweeps:
        if not values:
            continue
        values = values.split(",")
        print(f"\n| {title} | " + " | ".join(label for label, _ in sets) + " |")
        print("|---|" + "---|" * len(sets))
        for value in ["none"] + values:
            extra = [] if value == "none" else ["--language-model", model, option, value]
            rates = [wer(args, earshot, recognizer, condition, extra, references, librivox, f"{option}{value}")
                     for _, condition in sets]
            print(f"| {value} | " + " | ".join(f"{r:.3f}" for r in rates) + " |", flush=True)
    if args.weights or args.bonuses:
        return
    for recognizer in args.recognizers.split(","):
        for label, condition in sets:
            rates = []
            for custom in [False, True]:
                extra = ["--language-model", model] if custom else []
                rates.append(wer(args, earshot, recognizer, condition, extra, references, librivox, str(custom)))
            print(f"| {recognizer} | {label} | {rates[0]:.3f} | {rates[1]:.3f} | {rates[1] / rates[0]:.2f} |", flush=True)


def wer(args, earshot, recognizer, condition, extra, references, librivox, tag):
    """Word error rate of one recognizer and setting on one set (None: the LibriVox clips)."""
    if condition:
        out = os.path.join(args.work, f"out-{recognizer}-{condition}-{tag}")
        os.makedirs(out, exist_ok=True)
        files = sorted(os.path.join(args.work, condition, n + ".wav") for n in references)
        run([earshot, "transcribe", "--recognizer", recognizer, "--output-dir", out] + extra + files)
        pairs = [(references[n], open(os.path.join(out, n + ".txt")).read()) for n in references]
    else:
        out = os.path.join(args.work, f"out-{recognizer}-librivox-{tag}")
        os.makedirs(out, exist_ok=True)
        run([earshot, "transcribe", "--recognizer", recognizer, "--output-dir", out] + extra + list(librivox))
        pairs = [(r, open(os.path.join(out, os.path.basename(p)[:-4] + ".txt")).read())
                 for p, r in librivox.items()]
    counted = [errors(r, h) for r, h in pairs]
    return sum(e for e, _ in counted) / sum(n for _, n in counted)


if __name__ == "__main__":
    main()
