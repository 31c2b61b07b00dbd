"""One manual turn of an earshot serve Realtime session, with the `websockets` package the `openai` client
connects through: appends a recording of 24 kHz PCM16 mono at once, in 5 s pieces (no turn detection),
or with `paced` at the speaker's pace, in 0.1 s pieces as a microphone gives them; commits it, and from
then on sends one ping at a time, each after the last one's pong, until the transcription completes.
Prints, as one JSON document, the round trips done before the completed event, the events it got, the
transcript and any error event.

    realtime_manual_turn.py WS_URL API_KEY AUDIO_24K_S16LE_RAW [paced]
"""
import asyncio
import base64
import json
import sys
import time

from websockets.asyncio.client import connect

url, api_key, audio_path = sys.argv[1:4]
PACED = sys.argv[4:5] == ["paced"]
# 5 s of 24 kHz 16-bit mono, well within the service's message bound; 0.1 s when paced.
CHUNK = 4_800 if PACED else 240_000


async def main():
    with open(audio_path, "rb") as file:
        audio = file.read()
    report = {"round_trips_before_completed": 0, "slowest_pong_s": 0.0, "events": []}
    completed = asyncio.Event()
    # The client's own keep-alive is off: this script's pings are the ones counted.
    async with connect(url, additional_headers={"Authorization": f"Bearer {api_key}"}, ping_interval=None) as ws:

        # Everything goes at once (or at the speaker's pace), the settings first: the service handles
        # events in order, and the client never keeps it waiting (the test's idle timeout is short).
        await ws.send(json.dumps({"type": "session.update", "session": {
            "type": "transcription",
            "audio": {"input": {"format": {"type": "audio/pcm", "rate": 24000}, "turn_detection": None}}}}))
        started = time.monotonic()
        for offset in range(0, len(audio), CHUNK):
            if PACED:
                await asyncio.sleep(max(0.0, started + offset / 48_000 - time.monotonic()))
            await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                      "audio": base64.b64encode(audio[offset:offset + CHUNK]).decode()}))
        await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))

        async def listen():
            async for message in ws:
                event = json.loads(message)
                report["events"].append(event["type"])
                if event["type"] == "error":
                    report.setdefault("errors", []).append(event.get("error"))
                elif event["type"].startswith("conversation.item.input_audio_transcription.") and \
                        not event["type"].endswith(".delta"):
                    report["transcript"] = event.get("transcript")
                    completed.set()
                    return

        async def ping():
            while not completed.is_set():
                sent = time.monotonic()
                pong = await ws.ping()
                await pong
                if completed.is_set():
                    return
                report["round_trips_before_completed"] += 1
                report["slowest_pong_s"] = max(report["slowest_pong_s"], time.monotonic() - sent)
                await asyncio.sleep(0.02)

        pinger = asyncio.create_task(ping())
        async with asyncio.timeout(240):
            await listen()
        pinger.cancel()
    print(json.dumps(report))


asyncio.run(main())
