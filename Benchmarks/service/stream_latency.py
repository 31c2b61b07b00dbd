#!/usr/bin/env python3
"""Streams an encoded utterance to a running `earshot serve` at real-time pace, as the SDK's
uploader does (chunked, 512-byte chunks), and reports the time from the last chunk to the
complete response. With --streams N, N clients each upload --runs utterances
back to back, all starting together (or, with --stagger, their starts spread evenly over one
utterance, so that N uploads are always in flight and their ends do not coincide).

Standard library only, so it measures the service and nothing else:

    earshot encode --format speex-wb 0870.wav utterance.speex
    stream_latency.py --port 8080 --app-key K --secret S --file utterance.speex \
        --content-type 'audio/x-speex-with-header-byte;rate=16000' --duration 7.1 --runs 5 --streams 1

With --grammar FILE.grxml (and --context GrammarList or GenericHints) it posts Speech to Text
Custom requests instead.
"""
import argparse
import json
import socket
import statistics
import threading
import time
import urllib.parse
import urllib.request


def token(port, key, secret, scope):
    body = urllib.parse.urlencode(
        {"client_id": key, "client_secret": secret, "grant_type": "client_credentials", "scope": scope}
    ).encode()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/oauth/token", data=body) as reply:
        return json.load(reply)["access_token"]


def read_reply(sock):
    data = b""
    while True:
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep:
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length" and len(body) >= int(value):
                    return data
    return data


def stream_loop(runs, offset_s, barrier, *upload_args):
    """One live client: `runs` utterances back to back, the first after `offset_s`."""
    barrier.wait()
    time.sleep(offset_s)
    for _ in range(runs):
        upload(*upload_args)


BOUNDARY = "earshot-latency-boundary"


def upload(port, access, audio, content_type, duration, chunk, grammar, context, results):
    """One chunked upload paced at real time; with `grammar`, a speechToTextCustom multipart body
    whose grammar part goes first and whose audio part is paced like the plain body."""
    interval = duration * chunk / len(audio)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    path, body_type, before, after = "/speech/v3/speechToText", content_type, b"", b""
    if grammar is not None:
        path, body_type = "/speech/v3/speechToTextCustom", f"multipart/x-srgs-audio; boundary={BOUNDARY}"
        before = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="x-grammar"\r\n'
            "Content-Type: application/srgs+xml\r\n\r\n"
        ).encode() + grammar + (
            f'\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name="x-voice"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        after = f"\r\n--{BOUNDARY}--\r\n".encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Authorization: Bearer {access}\r\nContent-Type: {body_type}\r\nX-SpeechContext: {context}\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    sock.sendall(head.encode())
    if before:
        sock.sendall(b"%x\r\n" % len(before) + before + b"\r\n")
    start = time.monotonic()
    for n, offset in enumerate(range(0, len(audio), chunk)):
        due = start + n * interval
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        piece = audio[offset : offset + chunk]
        sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
    if after:
        sock.sendall(b"%x\r\n" % len(after) + after + b"\r\n")
    sock.sendall(b"0\r\n\r\n")
    last_chunk = time.monotonic()
    reply = read_reply(sock)
    done = time.monotonic()
    sock.close()
    status = int(reply.split(b" ", 2)[1])
    body = reply.partition(b"\r\n\r\n")[2]
    hypothesis = ""
    if status == 200:
        best = json.loads(body)["Recognition"].get("NBest") or [{}]
        hypothesis = best[0].get("Hypothesis", "")
    # Lag: how far behind real time the upload itself ran (the server's back-pressure shows here).
    results.append((status, done - last_chunk, (last_chunk - start) - duration, hypothesis))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--app-key", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--content-type", required=True)
    parser.add_argument("--duration", type=float, required=True, help="seconds of audio in the file")
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=512)
    parser.add_argument("--grammar", help="an SRGS file: post to speechToTextCustom with this x-grammar part")
    parser.add_argument("--context", help="X-SpeechContext (default Generic, or GrammarList with --grammar)")
    parser.add_argument(
        "--stagger",
        action="store_true",
        help="spread the streams' starts evenly over one utterance (a steady load) instead of starting them together",
    )
    args = parser.parse_args()
    audio = open(args.file, "rb").read()
    grammar = open(args.grammar, "rb").read() if args.grammar else None
    context = args.context or ("GrammarList" if grammar else "Generic")
    access = token(args.port, args.app_key, args.secret, "STTC" if grammar else "SPEECH")
    latencies, lags, statuses, texts = [], [], [], set()
    results = []
    barrier = threading.Barrier(args.streams)
    threads = [
        threading.Thread(
            target=stream_loop,
            args=(
                args.runs,
                args.duration * i / args.streams if args.stagger else 0.0,
                barrier,
                args.port, access, audio, args.content_type, args.duration, args.chunk, grammar, context,
                results,
            ),
        )
        for i in range(args.streams)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for status, latency, lag, text in results:
        statuses.append(status)
        if status == 200:
            latencies.append(latency)
            lags.append(lag)
            texts.add(text)
    ok = [s for s in statuses if s == 200]
    print(
        json.dumps(
            {
                "streams": args.streams,
                "staggered": args.stagger,
                "runs": args.runs,
                "ok": len(ok),
                "statuses": sorted(set(statuses)),
                "latency_median_s": round(statistics.median(latencies), 3) if latencies else None,
                "latency_max_s": round(max(latencies), 3) if latencies else None,
                "upload_lag_max_s": round(max(lags), 3) if lags else None,
                "distinct_transcripts": len(texts),
                "transcript": sorted(texts)[0] if texts else None,
            }
        )
    )


if __name__ == "__main__":
    main()
