"""Checks a NeMo manifest by the rules of NeMo's manifest reader (nemo.collections.common.parts.
preprocessing.manifest: one JSON object per line, an audio key — audio_filepath — and duration
required, offset optional; a relative path with a folder is taken from the manifest's folder), plus
what its audio loader needs of offset and duration: numbers, offset >= 0, duration > 0, and the
segment inside an existing audio file. NeMo itself needs torch, so it is not installed here.
Prints JSON [[audio_file, offset, duration], ...]. Used by VADCommandTests."""
import json
import os
import sys
import wave

manifest = sys.argv[1]
items = []
with open(manifest, encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
        item = json.loads(line)
        if not isinstance(item, dict):
            sys.exit(f"{manifest}:{number}: not a JSON object")
        path = item.get("audio_filepath", item.get("audio_filename"))
        if not isinstance(path, str) or "duration" not in item:
            sys.exit(f"{manifest}:{number}: needs audio_filepath and duration")
        if not os.path.isabs(path) and os.path.dirname(path):
            path = os.path.join(os.path.dirname(manifest), path)
        offset, duration = item.get("offset", 0), item["duration"]
        for key, value in (("offset", offset), ("duration", duration)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                sys.exit(f"{manifest}:{number}: {key} is not a number")
        if offset < 0 or duration <= 0:
            sys.exit(f"{manifest}:{number}: expected offset >= 0 and duration > 0")
        with wave.open(path) as audio:
            length = audio.getnframes() / audio.getframerate()
        if offset + duration > length + 0.001:
            sys.exit(f"{manifest}:{number}: the segment ends after the file ({length} s)")
        items.append([path, offset, duration])
print(json.dumps(items))
