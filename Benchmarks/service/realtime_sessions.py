#!/usr/bin/env python3
"""Issue 48's target for Realtime transcription sessions: `completed` within silence_duration_ms + 0.3 s
of the last speech sent, at p95, with 8 sessions on 2 cores.

Starts `earshot serve` (Whisper tiny.en, its defaults) with one recognizer per session, then for each
session count opens that many sessions at once with the `websockets` client the `openai` package uses
(`.earshot/venv`, `make realtime-clients`). Each session streams the corpus's recordings one after the
other at real time — 24 kHz PCM16 in 100 ms appends, each recording followed by 1.5 s of silence — with
server_vad (threshold 0.5, prefix_padding_ms 300, silence_duration_ms 500), the API's defaults.

For each `completed` it takes the time it arrived minus the time the recording's last reference word
(the corpus's own times, not the server's) was sent: the wait a user has once they stop. Prints one line
per session count: turns completed, errors, that wait's p50/p95, WER against the corpus transcripts and
the server's CPU in cores; with --json, the same as JSON.

    .earshot/venv/bin/python Benchmarks/service/realtime_sessions.py --sessions 1,8 --duration 60
"""
import argparse
import asyncio
import base64
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from websockets.asyncio.client import connect

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from wordscore import edits, words  # noqa: E402

RATE = 24_000
CHUNK = RATE * 2 // 10  # 100 ms of 16-bit mono
SILENCE_MS = 500


def load_corpus(path):
    clips = []
    with open(os.path.join(path, "manifest.jsonl")) as manifest:
        for line in manifest:
            entry = json.loads(line)
            if not entry.get("words"):
                continue
            raw = subprocess.run(
                ["sox", os.path.join(path, entry["path"]), "-r", str(RATE), "-b", "16", "-e", "signed", "-c", "1",
                 "-t", "raw", "-", "pad", "0", "1.5"],
                check=True, capture_output=True).stdout
            clips.append({"audio": raw, "speech_end_s": entry["words"][-1]["end_s"], "text": entry["transcript"],
                          "path": entry["path"]})
    return clips


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def session(url, key, clips, first, deadline, results):
    """One session: recordings from index `first` on, until `deadline`. A recording the server splits
    into several turns is scored as one: its turns' texts joined, and its wait taken at the turn that
    holds its last word."""
    async with connect(url, additional_headers={"Authorization": f"Bearer {key}"}, max_size=None) as ws:
        await ws.send(json.dumps({"type": "session.update", "session": {
            "type": "transcription", "audio": {"input": {
                "format": {"type": "audio/pcm", "rate": RATE},
                "transcription": {"model": "whisper-1", "language": "en"},
                "turn_detection": {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                                   "silence_duration_ms": SILENCE_MS}}}}}))
        sent = []  # per recording: its place in the session's audio, when its last word left, its turns' text

        async def send():
            start = time.monotonic()
            sent_s = 0.0
            index = first
            while time.monotonic() < deadline:
                clip = clips[index % len(clips)]
                index += 1
                record = {"clip": clip, "start_s": sent_s, "end_s": sent_s + len(clip["audio"]) / 2 / RATE,
                          "last_word_sent": None, "text": [], "waited": None}
                sent.append(record)
                for offset in range(0, len(clip["audio"]), CHUNK):
                    delay = start + sent_s - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    piece = clip["audio"][offset:offset + CHUNK]
                    await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                              "audio": base64.b64encode(piece).decode()}))
                    sent_s += len(piece) / 2 / RATE
                    if record["last_word_sent"] is None and sent_s >= record["start_s"] + clip["speech_end_s"]:
                        # The piece holding the last word has left: from here the user waits.
                        record["last_word_sent"] = time.monotonic()
            # The last answers, then the session ends.
            await asyncio.sleep(5)
            await ws.close()

        stopped = {}  # item id → audio_end_ms
        sender = asyncio.create_task(send())
        try:
            async for message in ws:
                event = json.loads(message)
                kind = event["type"]
                if kind == "error":
                    results["errors"].append(event["error"].get("code"))
                elif kind == "input_audio_buffer.speech_stopped":
                    stopped[event["item_id"]] = event["audio_end_ms"] / 1000
                elif kind == "conversation.item.input_audio_transcription.completed":
                    now = time.monotonic()
                    end = stopped.get(event["item_id"], 0)
                    record = next((r for r in sent if r["start_s"] <= end < r["end_s"]), None)
                    if record is None:
                        continue
                    record["text"].append(event["transcript"])
                    if record["waited"] is None and end >= record["start_s"] + record["clip"]["speech_end_s"] - 0.5:
                        record["waited"] = now - record["last_word_sent"]
                        results["waits"].append(record["waited"])
        finally:
            sender.cancel()
        for record in sent:
            if record["waited"] is not None:
                reference = words(record["clip"]["text"])
                errors = edits(reference, words(" ".join(record["text"])))
                results["errors_words"] += errors
                results["reference_words"] += len(reference)
                results["transcripts"].append({"path": record["clip"]["path"], "reference": record["clip"]["text"],
                                               "transcript": " ".join(record["text"]), "errors": errors,
                                               "turns": len(record["text"]), "wait_s": record["waited"]})


async def level(url, key, clips, count, duration):
    results = {"waits": [], "errors": [], "errors_words": 0, "reference_words": 0, "transcripts": []}
    deadline = time.monotonic() + duration
    spread = max(1, len(clips) // count)
    await asyncio.gather(*(session(url, key, clips, n * spread, deadline, results) for n in range(count)))
    return results


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else None


def decode_tally(port):
    """The service's Whisper decode counters from /metrics (zeros from a build that has none)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    values = {}
    for line in text.splitlines():
        found = re.match(r'(earshot_decode\w*)(\{[^}]*\})? ([0-9.e+-]+)$', line.strip())
        if found:
            values[found.group(1) + (found.group(2) or "")] = float(found.group(3))
    return {
        "final_cpu_s": values.get('earshot_decode_cpu_seconds_total{kind="final"}', 0.0),
        "partial_cpu_s": values.get('earshot_decode_cpu_seconds_total{kind="partial"}', 0.0),
        "partials_skipped": values.get('earshot_decodes_total{kind="partial_skipped"}', 0.0),
        "final_wait_s": values.get("earshot_decode_wait_seconds_total", 0.0),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--corpus", default="corpora/build/real")
    parser.add_argument("--sessions", default="1,8", help="session counts, comma-separated")
    parser.add_argument("--duration", type=float, default=60, help="seconds each count streams")
    parser.add_argument("--serve-flag", action="append", default=[], help="an extra flag for earshot serve")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    clips = load_corpus(options.corpus)
    counts = [int(n) for n in options.sessions.split(",")]
    reports = []
    with tempfile.TemporaryDirectory() as work:
        key = "sk-bench-" + secrets.token_hex(16)
        keys = os.path.join(work, "keys.txt")
        with open(keys, "w") as file:
            file.write(key + "\n")
        os.chmod(keys, 0o600)
        for count in counts:
            log = open(os.path.join(work, "serve.log"), "w+")
            server = subprocess.Popen(
                [options.earshot, "serve", "--port", "0", "--api-keys", keys, "--log-level", "warning",
                 "--recognizers", str(count), "--realtime-max-sessions", str(count),
                 "--max-recognitions-per-app", str(count)] + options.serve_flag,
                stderr=log)
            try:
                port = None
                for _ in range(600):
                    log.seek(0)
                    found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", log.read())
                    if found:
                        port = int(found.group(1))
                        break
                    time.sleep(0.1)
                if port is None:
                    log.seek(0)
                    sys.exit("earshot serve did not start: " + log.read())
                url = f"ws://127.0.0.1:{port}/v1/realtime?intent=transcription"
                cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
                results = asyncio.run(level(url, key, clips, count, options.duration))
                cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - wall_before)
                decodes = decode_tally(port)
            finally:
                server.terminate()
                server.wait()
            waits = results["waits"]
            reports.append({
                "sessions": count, "completed": len(waits), "errors": results["errors"],
                "wait_p50_s": percentile(waits, 0.5), "wait_p95_s": percentile(waits, 0.95),
                "target_s": SILENCE_MS / 1000 + 0.3,
                "wer": results["errors_words"] / max(1, results["reference_words"]),
                "server_cpu_cores": cpu, "decodes": decodes, "transcripts": results["transcripts"]})
            report = reports[-1]
            if not options.json:
                f = lambda v: "-" if v is None else f"{v:.3f}"
                print(f"sessions {count:2}  completed {report['completed']:3}  errors {len(report['errors']):2}  "
                      f"last word→completed p50 {f(report['wait_p50_s'])} p95 {f(report['wait_p95_s'])} "
                      f"(target {report['target_s']:.1f})  WER {f(report['wer'])}  "
                      f"server CPU {report['server_cpu_cores']:.2f} cores  "
                      f"decode CPU final {decodes['final_cpu_s']:.1f} s partial {decodes['partial_cpu_s']:.1f} s  "
                      f"partials skipped {decodes['partials_skipped']:.0f}  final wait {decodes['final_wait_s']:.1f} s  "
                      f"{' '.join(sorted(set(report['errors'])))}", flush=True)
    if options.json:
        print(json.dumps({"levels": reports}, indent=1))


main()
