#!/usr/bin/env python3
"""Text to Speech through `earshot serve`: per voice, the time from sending a four-sentence request on
POST /speech/v3/textToSpeech (16 kHz WAV) to its first audio sample (the first bytes past the 44-byte
WAV header) and to the end of the answer — what a voice application waits before its prompt starts
playing. Five rounds per voice, medians.

    python3 Benchmarks/service/tts_first_audio.py [.build/release/earshot]
"""
import http.client
import statistics
import sys
import time

from local_service import LocalService

EARSHOT = sys.argv[1] if len(sys.argv) > 1 else ".build/release/earshot"
TEXT = ("The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
        "It is easy to tell the depth of a well. These days a chicken leg is a rare dish.")

with LocalService(EARSHOT) as service:
    token, port = service.token("TTS"), service.port
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
