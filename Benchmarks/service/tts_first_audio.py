#!/usr/bin/env python3
"""Text to Speech through `earshot serve`: per voice, the time from sending a four-sentence request on
POST /speech/v3/textToSpeech (16 kHz WAV) to its first audio sample (the first bytes past the 44-byte
WAV header) and to the end of the answer — what a voice application waits before its prompt starts
playing. Five rounds per voice, medians.

    python3 Benchmarks/service/tts_first_audio.py [.build/release/earshot]
"""
import http.client
import json
import re
import statistics
import subprocess
import sys
import time
import urllib.request

EARSHOT = sys.argv[1] if len(sys.argv) > 1 else ".build/release/earshot"
TEXT = ("The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
        "It is easy to tell the depth of a well. These days a chicken leg is a rare dish.")

service = subprocess.Popen([EARSHOT, "serve", "--port", "0", "--log-level", "warning"], stderr=subprocess.PIPE, text=True)
try:
    banner = ""
    while "listening" not in banner:
        banner += service.stderr.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", banner).group(1))
    app, secret = re.search(r"APP_KEY=(\S+)", banner).group(1), re.search(r"SECRET_KEY=(\S+)", banner).group(1)
    form = f"client_id={app}&client_secret={secret}&grant_type=client_credentials&scope=TTS".encode()
    token = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/oauth/token", form))["access_token"]
    print("voice | first audio, median of 5 | whole answer, median | audio | × real time")
    for voice in ("slt", "kal16", "rms", "awb", "en-us"):
        firsts, totals = [], []
        for _ in range(5):
            connection = http.client.HTTPConnection("127.0.0.1", port)
            started = time.perf_counter()
            connection.request("POST", "/speech/v3/textToSpeech", TEXT.encode(), {
                "Authorization": f"Bearer {token}", "Content-Type": "text/plain", "X-Arg": f"VoiceName={voice}"})
            response = connection.getresponse()
            received, first = b"", None
            while chunk := response.read1(65536):
                received += chunk
                if first is None and len(received) > 44:
                    first = time.perf_counter() - started
            totals.append(time.perf_counter() - started)
            firsts.append(first)
            connection.close()
        audio = (len(received) - 44) / 32000
        total = statistics.median(totals)
        print(f"{voice} | {statistics.median(firsts) * 1000:.0f} ms | {total * 1000:.0f} ms | {audio:.2f} s | "
              f"{audio / total:.0f}×")
finally:
    service.terminate()
    service.wait()
