"""Drives earshot serve's POST /v1/audio/speech with the official `openai` Python client, as a user's
program would: a whole answer written to a file, a streamed one read as it arrives, and the errors.
Prints what it got as one JSON document for the Swift test to check.

    openai_speech_client.py BASE_URL API_KEY OUTPUT_DIRECTORY
"""
import json
import os
import sys

import openai

base_url, api_key, directory = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
report = {"openai_version": openai.__version__}
text = "Glue the sheet to the dark blue background."

# Whole answer, OpenAI's model and voice names.
answer = client.audio.speech.create(model="tts-1", voice="alloy", input=text, response_format="wav")
wav = os.path.join(directory, "alloy.wav")
answer.write_to_file(wav)
report["wav"] = wav

# Streamed: raw PCM read chunk by chunk as the service writes it, at a faster speed.
chunks = []
with client.audio.speech.with_streaming_response.create(
    model="tts-1-hd", voice="echo", input=text + " " + text, response_format="pcm", speed=1.25
) as response:
    report["stream_headers"] = {
        "content-type": response.headers.get("content-type"),
        "transfer-encoding": response.headers.get("transfer-encoding"),
        "content-length": response.headers.get("content-length"),
    }
    for chunk in response.iter_bytes():
        chunks.append(chunk)
pcm = os.path.join(directory, "echo.pcm")
with open(pcm, "wb") as file:
    file.write(b"".join(chunks))
report["pcm"] = pcm
report["pcm_chunks"] = len(chunks)


def refusal(**options):
    try:
        client.audio.speech.create(**options)
    except openai.APIStatusError as error:
        return {"status": error.status_code, "message": error.message}
    return None


report["mp3"] = refusal(model="tts-1", voice="alloy", input=text, response_format="mp3")
report["voice"] = refusal(model="tts-1", voice="nobody", input=text)
report["too_long"] = refusal(model="tts-1", voice="alloy", input="a" * 4097)
report["speed"] = refusal(model="tts-1", voice="alloy", input=text, speed=9)
wrong = openai.OpenAI(base_url=base_url, api_key="not-a-key", max_retries=0)
try:
    wrong.audio.speech.create(model="tts-1", voice="alloy", input=text)
    report["wrong_key"] = None
except openai.APIStatusError as error:
    report["wrong_key"] = {"status": error.status_code, "message": error.message}
print(json.dumps(report))
