"""Asks earshot serve's OpenAI-compatible /v1 for translations with the official `openai` Python client,
as a user's program would, and prints what it got as one JSON document for the Swift test to check.

    openai_translate.py BASE_URL API_KEY AUDIO_FILE MODEL REFUSING_MODEL
"""
import json
import sys

import openai

base_url, api_key, audio, model, refusing = sys.argv[1:6]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)


def translate(chosen, **options):
    with open(audio, "rb") as file:
        return client.audio.translations.create(model=chosen, file=file, **options)


report = {"text": translate(model).text}
report["models"] = {listed.id: getattr(listed, "languages", None) for listed in client.models.list()}
verbose = translate(model, response_format="verbose_json")
report["verbose"] = {"text": verbose.text, "language": verbose.language, "duration": verbose.duration}
with open(audio, "rb") as file:
    report["transcription"] = client.audio.transcriptions.create(model=model, file=file).text
try:
    translate(refusing)
    report["refused"] = "accepted"
except openai.BadRequestError as error:
    report["refused"] = {"status": error.status_code, "message": error.message, "param": error.body.get("param")}
print(json.dumps(report))
