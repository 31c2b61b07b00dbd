"""Word error counting for the benchmark scripts: words() normalizes a transcript (lower case, hyphens
as spaces, only letters, digits and apostrophes), edits() counts the substitutions, deletions and
insertions that turn a reference's words into a hypothesis's (Levenshtein over words, one row at a time).

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from wordscore import words, edits
"""
import re


def words(text):
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " ")).split()


def edits(reference, hypothesis):
    row = list(range(len(hypothesis) + 1))
    for i, word in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[-1]
