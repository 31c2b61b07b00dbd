"""One `earshot serve` on loopback for the service benchmarks: started on a free port with this run's
generated app, a token of any scope, the process's CPU time and resident set, its log drained so a long
run never blocks on a full pipe, stopped on exit.

    with LocalService(".build/release/earshot", "--recognizers", "1") as service:
        token = service.token("SPEECH")
"""
import json
import os
import re
import socket
import subprocess
import threading
import urllib.request


class LocalService:
    def __init__(self, binary, *serve_options):
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--log-level", "warning", *serve_options],
            stderr=subprocess.PIPE, text=True)
        banner = ""
        while "listening" not in banner:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError(f"earshot serve did not start: {banner}")
            banner += line
        self.port = int(re.search(r"127\.0\.0\.1:(\d+)", banner).group(1))
        self.app = re.search(r"APP_KEY=(\S+)", banner).group(1)
        self.secret = re.search(r"SECRET_KEY=(\S+)", banner).group(1)
        threading.Thread(target=lambda: [None for _ in self.process.stderr], daemon=True).start()

    def exchange(self, request):
        """Sends raw request bytes on a fresh connection; the whole reply, read until the service closes."""
        return exchange(self.port, request)

    def token(self, scope="SPEECH"):
        form = f"client_id={self.app}&client_secret={self.secret}&grant_type=client_credentials&scope={scope}"
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/oauth/token", form.encode()) as reply:
            return json.load(reply)["access_token"]

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().split(") ")[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def resident_mib(self):
        status = open(f"/proc/{self.process.pid}/status").read()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.stop()


def exchange(port, request):
    """Sends raw request bytes to 127.0.0.1:port; the whole reply, read until the other side closes."""
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(request)
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    return reply
