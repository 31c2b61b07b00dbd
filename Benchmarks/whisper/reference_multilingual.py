#!/usr/bin/env python3
"""Writes the reference results the multilingual Whisper parity tests check against (EarshotWhisperTests,
WhisperMultilingualParityTests): faster-whisper with Whisper base (the folder `earshot models fetch
whisper-base` installs), word timestamps on, float32 on one thread, the language left to detect
(faster-whisper's default: the first 30 s); greedy (beam 1, temperature 0 only), and with beam 5 as
`transcribe` runs it by default (beam 5, the temperature fallback on).

Recorded per clip: the detected language and its probability, the five likeliest languages, and the
tokens, times, log-probabilities and words of every segment, greedy and with beam 5, plus the first
window decoded once each way (the language token faster-whisper put in its prompt included); for the
eSpeak NG sentences, their translation into English too (task "translate", greedy, no word timestamps).

The clips are 16 kHz mono 16-bit WAV files that the test rebuilds byte for byte, so none is committed:
  - a sentence each in French, German and Spanish spoken by eSpeak NG (`espeak-ng -v LANG -w`, 22 050 Hz),
    taken to 16 kHz by sox without dither (`sox -D … -r 16000`);
  - one LibriVox clip of pocketsphinx-testdata (English, already 16 kHz).
Synthesized voices are hard for base: these clips are for parity, not for accuracy.

Usage (faster-whisper 1.2.1 in a scratch venv, never the repository's):
  python3 -m venv /tmp/fw && /tmp/fw/bin/pip install faster-whisper==1.2.1
  /tmp/fw/bin/python Benchmarks/whisper/reference_multilingual.py MODEL_DIR OUTPUT_JSON
"""
import json, os, subprocess, sys, tempfile

import numpy as np
import ctranslate2
import faster_whisper
from faster_whisper import WhisperModel
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_suppressed_tokens

# The clip readers of tiny.en's reference run, beside this script.
from reference import read, sha256

LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"
# (name, eSpeak NG voice, text): the test reads the same table from the fixture.
SPOKEN = [
    ("espeak/fr.wav", "fr", "Bonjour, je m'appelle Marie et j'habite à Paris depuis dix ans."),
    ("espeak/de.wav", "de", "Guten Morgen, heute ist das Wetter in Berlin sehr schön."),
    ("espeak/es.wav", "es", "Buenos días, me gusta mucho leer libros en la biblioteca."),
]
LIBRIVOX_CLIP = "sense_and_sensibility_01_austen_64kb-0870.wav"


def clips(scratch):
    found = []
    for name, voice, text in SPOKEN:
        raw = os.path.join(scratch, voice + "-22050.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-w", raw, text], check=True)
        path = os.path.join(scratch, voice + ".wav")
        # -D: no dither, which sox draws at random; the test rebuilds the same bytes.
        subprocess.run(["sox", "-D", raw, "-r", "16000", "-b", "16", path], check=True)
        found.append({"name": name, "voice": voice, "text": text, "path": path})
    found.append({"name": "librivox/" + LIBRIVOX_CLIP, "path": os.path.join(LIBRIVOX, LIBRIVOX_CLIP)})
    return found


def transcribe(model, audio, beam):
    """Greedy at temperature 0 only (beam 1), or faster-whisper's defaults (beam 5 and the fallback)."""
    temperature = 0.0 if beam == 1 else [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    segments, info = model.transcribe(
        audio, beam_size=beam, temperature=temperature, word_timestamps=True, language=None)
    segments = [{
        "start": s.start, "end": s.end, "text": s.text, "tokens": list(s.tokens),
        "avg_logprob": s.avg_logprob, "no_speech_prob": s.no_speech_prob, "temperature": s.temperature,
        "words": [[w.word, w.start, w.end, w.probability] for w in s.words],
    } for s in segments]
    top = [[code, prob] for code, prob in info.all_language_probs[:5]]
    return info.language, info.language_probability, top, segments


def translate(model, audio):
    """English text from the clip (task "translate"), greedy, without word timestamps."""
    segments, _ = model.transcribe(audio, beam_size=1, temperature=0.0, word_timestamps=False, task="translate")
    return [{"start": s.start, "end": s.end, "text": s.text, "tokens": list(s.tokens)} for s in segments]


def first_window(model, audio, language, beam):
    """The first window decoded once at temperature 0 with the detected language, with `beam` beams."""
    features = model.feature_extractor(audio)
    content = features.shape[-1] - 1
    window = np.zeros((80, 3000), dtype=np.float32)
    window[:, : min(3000, content)] = features[:, : min(3000, content)]
    encoded = model.model.encode(ctranslate2.StorageView.from_array(window[None]), to_cpu=True)
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language)
    result = model.model.generate(
        encoded, [tokenizer.sot_sequence], beam_size=beam, patience=1, length_penalty=1, repetition_penalty=1,
        no_repeat_ngram_size=0, max_length=448, return_scores=True, return_no_speech_prob=True, suppress_blank=True,
        suppress_tokens=list(get_suppressed_tokens(tokenizer, [-1])), max_initial_timestamp_index=50)[0]
    return {"prompt": list(tokenizer.sot_sequence), "tokens": list(result.sequences_ids[0]),
            "score": result.scores[0], "no_speech_prob": result.no_speech_prob}


def main():
    model_dir, output = sys.argv[1:3]
    model = WhisperModel(model_dir, device="cpu", compute_type="float32", cpu_threads=1)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for clip in clips(scratch):
            audio = read(clip["path"])
            language, probability, top, segments = transcribe(model, audio, 1)
            beam_language, _, _, beam5 = transcribe(model, audio, 5)
            assert beam_language == language, clip["name"]
            entry = {k: v for k, v in clip.items() if k != "path"}
            entry.update({"sha256": sha256(clip["path"]), "samples": len(audio), "language": language,
                          "language_probability": probability, "top_languages": top, "greedy": segments,
                          "first_window": first_window(model, audio, language, 1), "beam5": beam5,
                          "first_window_beam5": first_window(model, audio, language, 5)})
            if "voice" in clip:
                entry["translate"] = translate(model, audio)
            results.append(entry)
            print(clip["name"], language, "%.4f" % probability, " | ".join(s["text"] for s in segments),
                  file=sys.stderr)
    document = {"schema_version": 1, "faster_whisper": faster_whisper.__version__,
                "ctranslate2": ctranslate2.__version__, "model.bin sha256": sha256(os.path.join(model_dir, "model.bin")),
                "compute_type": "float32", "cpu_threads": 1, "espeak_ng": espeak_version(),
                "beam_sizes": [1, 5], "clips": results}
    with open(output, "w") as f:
        json.dump(document, f, indent=1, ensure_ascii=False)
        f.write("\n")


def espeak_version():
    out = subprocess.run(["espeak-ng", "--version"], check=True, capture_output=True, text=True).stdout
    return out.split(":")[1].split()[0] if ":" in out else out.strip()


if __name__ == "__main__":
    main()
