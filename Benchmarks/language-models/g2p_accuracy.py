#!/usr/bin/env python3
"""How often espeak-ng's pronunciations, mapped to CMU phones by `earshot lm pronounce --from espeak-ng`,
agree with the PocketSphinx dictionary, on words the dictionary knows: the fallback `earshot lm build`
uses for words it lacks. Reports the share of words pronounced exactly as one of the dictionary's
pronunciations and the phone error rate against the closest one (edit distance / its length).

    python3 Benchmarks/language-models/g2p_accuracy.py [--words 2000] [--seed 1]
"""
import argparse, os, random, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DICTIONARY = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"


def distance(a, b):
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        previous, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] != b[j - 1]))
    return row[len(b)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    parser.add_argument("--words", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--errors", type=int, default=0, help="print this many disagreements")
    args = parser.parse_args()
    dictionary = {}
    for line in open(DICTIONARY):
        fields = line.split()
        word = fields[0].split("(")[0]
        if word.isalpha() and word.isascii():
            dictionary.setdefault(word, []).append(fields[1:])
    words = sorted(dictionary)
    random.Random(args.seed).shuffle(words)
    words = words[: args.words]
    result = subprocess.run([args.earshot, "lm", "pronounce", "--from", "espeak-ng"] + words,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(result.stderr)
    exact, errors, phones, shown = 0, 0, 0, 0
    for line in result.stdout.splitlines():
        word, guessed, _ = line.split("\t")
        guessed = guessed.split()
        best = min(dictionary[word], key=lambda reference: distance(reference, guessed) / len(reference))
        d = distance(best, guessed)
        exact += d == 0
        errors += d
        phones += len(best)
        if d and shown < args.errors:
            print(f"{word}: espeak-ng {' '.join(guessed)} | dictionary {' '.join(best)}")
            shown += 1
    count = len(result.stdout.splitlines())
    print(f"{count} dictionary words (seed {args.seed}): {exact / count:.1%} exactly as the dictionary; "
          f"phone error rate {errors / phones:.1%}")


if __name__ == "__main__":
    main()
