"""A Realtime session limit reloaded on SIGHUP, as a client sees it: holds one session of an earshot
serve run with `realtime-max-sessions: 1` in CONFIG, opens a second (refused), writes `realtime-max-sessions: 2`
into CONFIG, sends SIGHUP to PID, and opens a third until it is admitted or 30 s pass. The held session
stays open throughout. Prints one JSON document: the first event of each opening and whether the held
session still answers.

    realtime_reload.py WS_URL API_KEY CONFIG PID
"""
import asyncio
import json
import os
import signal
import sys
import time

from websockets.asyncio.client import connect

url, api_key, config, pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
HEADERS = {"Authorization": f"Bearer {api_key}"}
SETTINGS = json.dumps({"type": "session.update", "session": {"type": "transcription"}})


async def first_event(ws):
    """The session's first event (session.created or the refusal's error), its code if an error."""
    event = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
    if event["type"] == "error":
        return event["error"]["code"]
    return event["type"]


async def attempt():
    """Opens a session, answers its first event with the settings, and returns that first event."""
    async with connect(url, additional_headers=HEADERS) as ws:
        first = await first_event(ws)
        await ws.send(SETTINGS)
        return first


async def main():
    report = {"after_reload": []}
    async with connect(url, additional_headers=HEADERS) as held:
        report["held"] = await first_event(held)
        report["before_reload"] = await attempt()
        with open(config, "w") as file:
            file.write("serve:\n  realtime-max-sessions: 2\n")
        os.kill(pid, signal.SIGHUP)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            outcome = await attempt()
            report["after_reload"].append(outcome)
            if outcome == "session.created":
                break
            await asyncio.sleep(0.2)
        # The held session was opened before the reload and is still served.
        await held.send(SETTINGS)
        while True:
            event = json.loads(await asyncio.wait_for(held.recv(), timeout=60))
            if event["type"] in ("session.updated", "error"):
                report["held_after_reload"] = event["type"]
                break
    print(json.dumps(report))


asyncio.run(main())
