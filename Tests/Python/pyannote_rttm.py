"""Reads an RTTM file with pyannote.database's own loader and prints what it found as JSON:
{uri: [[start, end], ...]} in time order. Used by VADCommandTests."""
import json
import sys

from pyannote.database.util import load_rttm

annotations = load_rttm(sys.argv[1])
print(json.dumps({
    uri: sorted([segment.start, segment.end] for segment in annotation.get_timeline())
    for uri, annotation in annotations.items()
}))
