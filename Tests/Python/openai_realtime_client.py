"""Drives earshot serve's Realtime transcription sessions (/v1/realtime?intent=transcription) with the
official `openai` Python client's realtime connection (it needs `websockets`), as a user's program would:
streams raw 24 kHz PCM16 mono in 100 ms appends at real time, with server_vad, and prints the server
events it got as one JSON document for the Swift test to check.

    openai_realtime_client.py BASE_URL API_KEY AUDIO_24K_S16LE_RAW
"""
import asyncio
import base64
import json
import sys
import time

import openai

base_url, api_key, audio_path = sys.argv[1:4]
CHUNK = 4_800  # 100 ms of 24 kHz 16-bit mono


async def main():
    client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    with open(audio_path, "rb") as file:
        audio = file.read()
    events = []
    async with client.realtime.connect(extra_query={"intent": "transcription"}) as connection:
        await connection.session.update(
            session={
                "type": "transcription",
                "audio": {
                    "input": {
                        "format": {"type": "audio/pcm", "rate": 24000},
                        "transcription": {"model": "whisper-1", "language": "en"},
                        "turn_detection": {
                            "type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                            "silence_duration_ms": 500,
                        },
                    }
                },
            }
        )

        async def send():
            start = time.monotonic()
            for index, offset in enumerate(range(0, len(audio), CHUNK)):
                # Real time: chunk N leaves at N × 100 ms.
                delay = start + index * 0.1 - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                chunk = base64.b64encode(audio[offset:offset + CHUNK]).decode("ascii")
                await connection.input_audio_buffer.append(audio=chunk)

        sender = asyncio.create_task(send())
        try:
            # Generous: the test checks the events and their order, not speed, and runs beside every
            # other suite.
            async with asyncio.timeout(240):
                async for event in connection:
                    events.append({"type": event.type, "at": time.monotonic(), **event.model_dump(exclude={"type"})})
                    if event.type in (
                        "conversation.item.input_audio_transcription.completed",
                        "conversation.item.input_audio_transcription.failed",
                    ):
                        break
        finally:
            sender.cancel()
    print(json.dumps({"openai_version": openai.__version__, "events": events}, default=str))


asyncio.run(main())
