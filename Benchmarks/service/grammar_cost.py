#!/usr/bin/env python3
"""What a Speech to Text Custom grammar costs the service, and how hostile ones are refused.

Starts `earshot serve` (the binary given, default .build/release/earshot) on a free loopback port with one
recognizer, posts the cards recording with a series of grammars (the real cards grammar, nested repeats
unrolling to 5 000, 10 000 and 20 000 arcs, and the hostile grammars of the hardening issue), and prints for
each: its size, the status, the request's wall time, the CPU time the service spent on it (which, unlike
the wall time, does not depend on what else the machine runs) and the service's resident memory afterwards.

    python3 Benchmarks/service/grammar_cost.py [.build/release/earshot] [--max-grammar-arcs N]
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from local_service import LocalService  # noqa: E402

binary = next((a for a in sys.argv[1:] if not a.startswith("--")), ".build/release/earshot")
extra = [a for a in sys.argv[1:] if a != binary]
service = LocalService(binary, "--recognizers", "1", *extra)
exchange, cpu_seconds, resident_mib = service.exchange, service.cpu_seconds, service.resident_mib
token = service.token("STTC")
audio = open("/usr/share/pocketsphinx/test/data/cards/004.wav", "rb").read()
HEAD = '<?xml version="1.0"?><grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" root="r"><rule id="r">'
WORDS = "one two three four five six seven eight".split()


def repeats(levels, words, bounds="0-50"):
    choice = "<one-of>" + "".join(f"<item>{w}</item>" for w in words) + "</one-of>"
    return (HEAD + f'<item repeat="{bounds}">' * levels + choice + "</item>" * levels + "</rule></grammar>").encode()


def nested(depth):
    return (HEAD + "<one-of><item>" * depth + "yes" + "</item></one-of>" * depth + "</rule></grammar>").encode()


def recognize(grammar):
    body = (b'--B\r\nContent-Disposition: form-data; name="x-grammar"\r\nContent-Type: application/srgs+xml\r\n\r\n'
            + grammar + b'\r\n--B\r\nContent-Disposition: form-data; name="x-voice"\r\nContent-Type: audio/wav\r\n\r\n'
            + audio + b"\r\n--B--\r\n")
    head = ("POST /speech/v3/speechToTextCustom HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: multipart/x-srgs-audio; boundary=B\r\n"
            f"X-SpeechContext: GrammarList\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    started = time.time()
    reply = exchange(head + body)
    return time.time() - started, int(reply[9:12]), reply.split(b"\r\n\r\n", 1)[1].decode(errors="replace")


cases = [
    ("cards grammar (111 arcs)", open("Examples/grammars/cards.grxml", "rb").read()),
    ("2 × repeat 0-25 of 8 words (5 000 arcs)", repeats(2, WORDS, "0-25")),
    ("2 × repeat 0-35 of 8 words (9 800 arcs)", repeats(2, WORDS, "0-35")),
    ("2 × repeat 0-50 of 8 words (20 000 arcs)", repeats(2, WORDS)),
    ("3 × repeat 0-50 of 2 words (250 000 arcs)", repeats(3, ["one", "two"])),
    ("6 × repeat 0-50 of 2 words", repeats(6, ["one", "two"])),
    ("20 000 nested one-of", nested(20_000)),
]
print(f"service at start: {resident_mib():.0f} MiB")
print("| grammar | bytes | status | wall s | service CPU s | service MiB after | answer |")
print("|---|---|---|---|---|---|---|")
for name, grammar in cases:
    cpu = cpu_seconds()
    seconds, status, answer = recognize(grammar)
    cpu = cpu_seconds() - cpu
    text = answer if status != 200 else (json.loads(answer)["Recognition"]["NBest"] or [{}])[0].get("Hypothesis", "")
    print(f"| {name} | {len(grammar)} | {status} | {seconds:.2f} | {cpu:.2f} | {resident_mib():.0f} | {text[:90]} |")
service.stop()
