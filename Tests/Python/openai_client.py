"""Drives earshot serve's OpenAI-compatible /v1 with the official `openai` Python client, as a user's
program would, and prints what it got as one JSON document for the Swift test to check.

    openai_client.py BASE_URL API_KEY AUDIO_FILE
"""
import json
import sys

import openai

base_url, api_key, audio = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
report = {"openai_version": openai.__version__}
report["models"] = [model.id for model in client.models.list()]
model = report["models"][0]


def transcribe(api, **options):
    with open(audio, "rb") as file:
        return api.audio.transcriptions.create(model=model, file=file, **options)


report["json"] = transcribe(client).text
verbose = transcribe(client, response_format="verbose_json", timestamp_granularities=["word", "segment"])
report["verbose"] = {
    "text": verbose.text,
    "duration": verbose.duration,
    "language": verbose.language,
    "words": [[word.word, word.start, word.end] for word in verbose.words],
    "segments": [[segment.start, segment.end, segment.text] for segment in verbose.segments],
}
report["srt"] = transcribe(client, response_format="srt")
try:
    transcribe(openai.OpenAI(base_url=base_url, api_key="not-a-token", max_retries=0))
    report["wrong_key"] = "accepted"
except openai.AuthenticationError as error:
    report["wrong_key"] = {"status": error.status_code, "message": error.message}
print(json.dumps(report))
