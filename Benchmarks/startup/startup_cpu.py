#!/usr/bin/env python3
"""CPU a command costs from exec to exit (user + system, children's rusage), for several earshot
binaries side by side and sox as the peer, so start-up is compared in one run on a noisy machine.

    python3 Benchmarks/startup/startup_cpu.py --runs 30 before=/tmp/base/earshot after=.build/release/earshot

Runs, for each binary: `--version`, `level FILE` and `info FILE` on a one-second 16 kHz WAV, and
`info FILE` on a two-second M4A (FFmpeg's libraries loaded); and `sox FILE -n stat` beside them. The
commands alternate binary by binary within each round, so drift on the machine hits them alike.
Prints the median and 90th percentile CPU in milliseconds of each, and --json writes them too.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def cpu_of(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+", help="NAME=PATH of an earshot binary")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    binaries = [entry.split("=", 1) for entry in args.binaries]
    work = tempfile.mkdtemp(prefix="earshot-startup-")
    wav, m4a = os.path.join(work, "tone.wav"), os.path.join(work, "tone.m4a")
    subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", wav, "synth", "1", "sine", "440"], check=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=2", "-c:a", "aac", m4a],
                   check=True)
    commands = {}
    for name, path in binaries:
        commands[f"{name}: --version"] = [path, "--version"]
        commands[f"{name}: level WAV"] = [path, "level", wav]
        commands[f"{name}: info WAV"] = [path, "info", wav]
        commands[f"{name}: info M4A"] = [path, "info", m4a]
    commands["sox: stat WAV"] = ["sox", wav, "-n", "stat"]
    # An isolated environment: no config file is read, no EARSHOT_ variable set.
    os.environ["HOME"] = work
    os.environ["XDG_CONFIG_HOME"] = os.path.join(work, ".config")
    for key in [key for key in os.environ if key.startswith("EARSHOT_") or key == "OPENBLAS_CORETYPE"]:
        del os.environ[key]
    samples = {label: [] for label in commands}
    for label, command in commands.items():
        cpu_of(command)  # warm the page cache
    for _ in range(args.runs):
        for label, command in commands.items():
            samples[label].append(cpu_of(command))
    results = {}
    print(f"{'command':<28} {'median ms':>10} {'p90 ms':>8}")
    for label, values in samples.items():
        values.sort()
        median = statistics.median(values)
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        results[label] = {"median_ms": round(median, 1), "p90_ms": round(p90, 1), "runs": len(values)}
        print(f"{label:<28} {median:>10.1f} {p90:>8.1f}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"runs": args.runs, "cpu": results}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
