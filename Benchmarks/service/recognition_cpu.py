#!/usr/bin/env python3
"""What a recognition costs the service in CPU, per second of audio: the figures behind the defaults of
`earshot serve --max-cpu-per-audio-second` and `--cpu-grace`.

Starts `earshot serve` (the binary given) and sends every WAV file of each corpus, one request at a time,
three ways: the OpenAI route with `model=pocketsphinx-en-us`, the same with `model=whisper-tiny.en` (when
the service lists it), and the Speech API with partial results (`X-Arg: PartialResults=true`, the most
decodes a request can ask for: Whisper decodes the utterance again as audio comes). A request's CPU is
the service process's CPU time (user + system, from /proc) across it, so nothing else may use the
service meanwhile (each way starts with one unmeasured request, which loads its recognizer); the machine may be busy (CPU time, not wall time). For each way and corpus it prints
the requests, the largest CPU / audio ratio, the largest CPU, and for ratios 0.5–2 the least grace
for which every request fits a budget of `GRACE + RATIO × audio` (and fits it twice over), plus how many
requests the budget given with `--check RATIO GRACE` would have cut and the largest share of its budget
any request used.

    python3 Benchmarks/service/recognition_cpu.py [--binary .build/release/earshot]
        [--check RATIO GRACE] [--limit N] CORPUS...
"""
import argparse
import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from local_service import LocalService, exchange  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("corpora", nargs="+")
parser.add_argument("--binary", default=".build/release/earshot")
parser.add_argument("--check", nargs=2, type=float, metavar=("RATIO", "GRACE"))
parser.add_argument("--limit", type=int, default=0, help="at most N files per corpus (0: all)")
options = parser.parse_args()


def openai_request(token, model, audio):
    boundary = uuid.uuid4().hex
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n{model}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n'
            'Content-Type: audio/wav\r\n\r\n').encode() + audio + f"\r\n--{boundary}--\r\n".encode()
    return (f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def partials_request(token, audio):
    return (f"POST /speech/v3/speechToText HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: audio/wav\r\nX-SpeechContext: Generic\r\n"
            f"X-Arg: PartialResults=true\r\nAccept: application/x-ndjson\r\n"
            f"Content-Length: {len(audio)}\r\n\r\n").encode() + audio


def wav_seconds(data):
    # 16-bit PCM WAV: find the fmt and data chunks.
    rate = int.from_bytes(data[24:28], "little")
    channels = int.from_bytes(data[22:24], "little")
    position = 12
    while position + 8 <= len(data):
        size = int.from_bytes(data[position + 4:position + 8], "little")
        if data[position:position + 4] == b"data":
            return min(size, len(data) - position - 8) / (2 * channels * rate)
        position += 8 + size + (size & 1)
    raise ValueError("no data chunk")


with LocalService(options.binary, "--recognizers", "1", "--max-initial-silence", "inf") as service:
    token = service.token("SPEECH")
    models = json.loads(exchange(service.port, (
        f"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\r\n"
    ).encode()).split(b"\r\n\r\n", 1)[1])
    listed = [model["id"] for model in models["data"]]
    ways = [("pocketsphinx", lambda audio: openai_request(token, "pocketsphinx-en-us", audio))]
    if "whisper-tiny.en" in listed:
        ways.append(("whisper", lambda audio: openai_request(token, "whisper-tiny.en", audio)))
    ways.append((f"{listed[0]} partials", lambda audio: partials_request(token, audio)))
    report = []
    for corpus in options.corpora:
        with open(os.path.join(corpus, "manifest.jsonl")) as manifest:
            files = [json.loads(line)["path"] for line in manifest if line.strip()]
        if options.limit:
            files = files[:options.limit]
        clips = [(path, open(os.path.join(corpus, path), "rb").read()) for path in files]
        for name, request in ways:
            # Once unmeasured: the first request of a model waits for its recognizer to load.
            exchange(service.port, request(clips[0][1]))
            rows = []
            for path, audio in clips:
                before = service.cpu_seconds()
                reply = exchange(service.port, request(audio))
                cpu = service.cpu_seconds() - before
                status = int(reply[9:12])
                if status != 200:
                    sys.exit(f"{name} {path}: status {status}: {reply[:300]!r}")
                rows.append((path, wav_seconds(audio), cpu))
            ratio = max(cpu / seconds for _, seconds, cpu in rows)
            worst = max(rows, key=lambda row: row[2] / row[1])
            line = {
                "corpus": os.path.basename(corpus.rstrip("/")), "way": name, "requests": len(rows),
                "audio_s": round(sum(row[1] for row in rows), 1), "cpu_s": round(sum(row[2] for row in rows), 1),
                "max_cpu_per_audio_s": round(ratio, 3), "worst": f"{worst[0]} ({worst[1]:.2f} s, {worst[2]:.2f} s CPU)",
                "max_cpu_s": round(max(row[2] for row in rows), 2),
            }
            # The least grace each ratio needs so that every request fits its budget, and fits it twice over.
            for candidate in (0.5, 1, 1.5, 2):
                line[f"grace_for_ratio_{candidate}"] = round(max(0, max(c - candidate * s for _, s, c in rows)), 2)
                line[f"grace_for_half_at_ratio_{candidate}"] = round(
                    max(0, max(2 * c - candidate * s for _, s, c in rows)), 2)
            if options.check:
                budget_ratio, grace = options.check
                cut = [row for row in rows if row[2] > grace + budget_ratio * row[1]]
                line["cut_by_check"] = len(cut)
                line["largest_share_of_budget"] = round(max(c / (grace + budget_ratio * s) for _, s, c in rows), 3)
            print(json.dumps(line, ensure_ascii=False), flush=True)
            report.append(line)
