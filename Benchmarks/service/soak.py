#!/usr/bin/env python3
"""Memory soak of `earshot serve`: does what requests take come back?

Starts `earshot serve` (the binary given, default .build/release/earshot; default settings but the log
level) on a free loopback port and sends N requests (default 1 000) from C concurrent clients (default 2),
rotating through four kinds: a Speech API speechToText WAV upload, a Speech to Text Custom request with
the cards grammar, the same with a one-word PLS lexicon (which costs a recognizer reload), and an OpenAI
`/v1/audio/transcriptions` upload. Every `--every` requests (default 10) it records the service's resident
set (VmRSS from /proc/PID/status) to a CSV, then idles `--idle` seconds (default 10) and records it again.
Prints the ratio of the final and idle sizes to the size after the first 10 requests (the issue's bound is
1.5) and draws RSS over requests as an SVG beside the CSV (no plotting library needed).

    python3 Benchmarks/service/soak.py [.build/release/earshot] [--requests N] [--concurrency C]
        [--every K] [--idle S] [--out Benchmarks/service/results/soak] [other earshot serve options]
"""
import argparse
import collections
import json
import sys
import threading
import time

from local_service import LocalService

parser = argparse.ArgumentParser()
parser.add_argument("binary", nargs="?", default=".build/release/earshot")
parser.add_argument("--requests", type=int, default=1000)
parser.add_argument("--concurrency", type=int, default=2)
parser.add_argument("--every", type=int, default=10)
parser.add_argument("--idle", type=float, default=10)
parser.add_argument("--out", default="Benchmarks/service/results/soak")
# Anything else is an option for earshot serve (e.g. --recognizers 1).
options, options.serve = parser.parse_known_args()

service = LocalService(options.binary, *options.serve)


def exchange(data):
    return service.exchange(data)


speech, custom = service.token("SPEECH"), service.token("STTC")
audio = open("/usr/share/pocketsphinx/test/data/cards/004.wav", "rb").read()
cards = open("Examples/grammars/cards.grxml", "rb").read()
clubz = cards.replace(b"<item>clubs</item>", b"<item>clubz</item>")
lexicon = ('<?xml version="1.0" encoding="UTF-8"?><lexicon version="1.0" '
           'xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">'
           '<lexeme><grapheme>clubz</grapheme><phoneme>klʌbz</phoneme></lexeme></lexicon>').encode()


def multipart(parts, boundary=b"B"):
    body = b""
    for headers, content in parts:
        body += b"--" + boundary + b"\r\n" + headers + b"\r\n\r\n" + content + b"\r\n"
    return body + b"--" + boundary + b"--\r\n"


def post(path, bearer, content_type, body, extra=""):
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {bearer}\r\n"
            f"Content-Type: {content_type}\r\n{extra}Content-Length: {len(body)}\r\n\r\n").encode() + body


def part(name, content_type, content):
    return (f'Content-Disposition: form-data; name="{name}"\r\nContent-Type: {content_type}'.encode(), content)


KINDS = [
    ("speech", post("/speech/v3/speechToText", speech, "audio/wav", audio, "X-SpeechContext: Generic\r\n")),
    ("grammar", post("/speech/v3/speechToTextCustom", custom, "multipart/x-srgs-audio; boundary=B",
                     multipart([part("x-grammar", "application/srgs+xml", cards), part("x-voice", "audio/wav", audio)]),
                     "X-SpeechContext: GrammarList\r\n")),
    ("lexicon", post("/speech/v3/speechToTextCustom", custom, "multipart/x-srgs-audio; boundary=B",
                     multipart([part("x-dictionary", "application/pls+xml", lexicon),
                                part("x-grammar", "application/srgs+xml", clubz), part("x-voice", "audio/wav", audio)]),
                     "X-SpeechContext: GrammarList\r\n")),
    ("openai", post("/v1/audio/transcriptions", speech, "multipart/form-data; boundary=B",
                    multipart([(b'Content-Disposition: form-data; name="model"', b"whisper-1"),
                               (b'Content-Disposition: form-data; name="file"; filename="004.wav"\r\n'
                                b"Content-Type: audio/wav", audio)]))),
]

lock = threading.Lock()
issued = 0
done = 0
statuses = collections.Counter()
rows = [("requests", "rss_mib", "elapsed_s", "state")]
started = time.time()
rows.append((0, round(service.resident_mib(), 1), 0.0, "start"))


def client():
    global issued, done
    while True:
        with lock:
            if issued >= options.requests:
                return
            index = issued
            issued += 1
        kind, request = KINDS[index % len(KINDS)]
        try:
            status = int(exchange(request)[9:12])
        except (OSError, ValueError):
            status = 0
        with lock:
            statuses[(kind, status)] += 1
            done += 1
            if done % options.every == 0:
                rows.append((done, round(service.resident_mib(), 1), round(time.time() - started, 1), "loaded"))
                print(f"{done} requests: {rows[-1][1]} MiB", file=sys.stderr, flush=True)


threads = [threading.Thread(target=client) for _ in range(options.concurrency)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
time.sleep(options.idle)
rows.append((done, round(service.resident_mib(), 1), round(time.time() - started, 1), "idle"))
service.stop()

after10 = next(row[1] for row in rows[1:] if row[0] >= 10)
peak = max(row[1] for row in rows[1:])
with open(options.out + ".csv", "w") as csv:
    csv.write("\n".join(",".join(map(str, row)) for row in rows) + "\n")
summary = {
    "requests": done, "concurrency": options.concurrency, "serve_options": options.serve,
    "statuses": {f"{kind} {status}": count for (kind, status), count in sorted(statuses.items())},
    "rss_start_mib": rows[1][1], "rss_after_10_mib": after10, "rss_peak_mib": peak,
    "rss_end_mib": rows[-2][1], "rss_idle_mib": rows[-1][1],
    "peak_over_after_10": round(peak / after10, 2), "idle_over_after_10": round(rows[-1][1] / after10, 2),
    "seconds": round(time.time() - started, 1),
}
print(json.dumps(summary, indent=2))

# RSS over requests as an SVG line chart.
points = [row for row in rows[1:] if row[3] != "idle"]
width, height, left, bottom, top, right = 640, 360, 60, 40, 20, 20
xmax = max(1, points[-1][0])
ymax = max(200, 1.6 * after10, peak) * 1.05


def xy(requests, mib):
    return (left + (width - left - right) * requests / xmax, height - bottom - (height - bottom - top) * mib / ymax)


svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
       'font-size="11">', f'<rect width="{width}" height="{height}" fill="white"/>']
for tick in range(0, int(ymax) + 1, 100 if ymax < 1200 else 200):
    x0, y = xy(0, tick)
    svg.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
               f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
for tick in range(0, xmax + 1, max(1, xmax // 5)):
    x, y0 = xy(tick, 0)
    svg.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">{tick}</text>')
bound = 1.5 * after10
_, y = xy(0, bound)
svg.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#c33" stroke-dasharray="4 3"/>'
           f'<text x="{width - right}" y="{y - 4:.1f}" text-anchor="end" fill="#c33">1.5 × after 10 requests</text>')
line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(row[0], row[1]) for row in points))
svg.append(f'<polyline points="{line}" fill="none" stroke="#246" stroke-width="1.5"/>')
x, y = xy(rows[-1][0], rows[-1][1])
svg.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#c33"/>'
           f'<text x="{x - 6:.1f}" y="{y + 16:.1f}" text-anchor="end">idle {rows[-1][1]:.0f} MiB</text>')
svg.append(f'<text x="{left}" y="{height - 6}">requests (speech, grammar, lexicon, OpenAI in turn; '
           f'{options.concurrency} clients)</text>'
           f'<text x="12" y="{top + (height - top - bottom) / 2}" transform="rotate(-90 12 '
           f'{top + (height - top - bottom) / 2})" text-anchor="middle">resident MiB</text></svg>')
with open(options.out + ".svg", "w") as out:
    out.write("\n".join(svg) + "\n")
sys.exit(0 if summary["peak_over_after_10"] <= 1.5 and summary["idle_over_after_10"] <= 1.5 else 1)
