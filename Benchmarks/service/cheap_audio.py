#!/usr/bin/env python3
"""The cheap-audio attack of the second hardening round, against each `earshot` binary given (run an
old and a new build side by side): an AMR upload of NO_DATA frames (one byte per 20 ms of audio) whose
first KiB arrives at once, so a recognizer is lent, and then 30 bytes a second (0.6 s of audio per
second: above the 0.5× real-time pace the upload rules ask). Prints the status, whether the answer was
"No Speech", how long the recognizer was held and the service's CPU for the request (from /proc).

    python3 Benchmarks/service/cheap_audio.py OLD/earshot .build/release/earshot
"""
import socket
import sys
import time

from local_service import LocalService

SECONDS = 60
DRIBBLE = 30  # bytes a second after the first KiB
GIVE_UP = 25  # seconds of dribbling before the client stops sending


def attack(binary):
    with LocalService(binary) as service:
        token, port, cpu = service.token(), service.port, service.cpu_seconds
        body = b"#!AMR\n" + bytes([0x7C]) * (SECONDS * 50)
        head = (f"POST /speech/v3/speechToText HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: audio/amr\r\nX-SpeechContext: Generic\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        cpu_before, started = cpu(), time.time()
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(head + body[:1030])
        sent, reply = 1030, b""
        connection.settimeout(1.0)
        while sent < len(body) and time.time() - started < GIVE_UP:
            try:
                reply = connection.recv(65536)
                break
            except socket.timeout:
                connection.sendall(body[sent:sent + DRIBBLE])
                sent += DRIBBLE
        connection.settimeout(None)
        while chunk := connection.recv(65536):
            reply += chunk
        held = time.time() - started
        status = reply.split(b"\r\n")[0].decode()
        print(f"{binary}: {status}; No Speech: {b'No Speech' in reply}; answered after {held:.2f} s; "
              f"service CPU {cpu() - cpu_before:.2f} s")


for path in sys.argv[1:]:
    attack(path)
