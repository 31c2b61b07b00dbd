#!/usr/bin/env bash
# Prints a Markdown table of the runs logged in Fuzz/.build/logs/ (by Fuzz/run.sh): per target, the
# executions, wall and CPU time, executions per second, libFuzzer's final coverage (cov: edges,
# ft: features) and corpus, and whether it found something. RELIABILITY.md records these.
cd "$(dirname "$0")/.."
/usr/bin/python3 - Fuzz/.build/logs/*.log <<'PY'
import re, sys
print("| run | executions | wall s | CPU s | exec/s | cov | ft | corpus | findings |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
for path in sys.argv[1:]:
    text = open(path, errors="replace").read()
    target = path.rsplit("/", 1)[-1][:-4]  # <target>-<UTC start time>
    stat = lambda name: (re.findall(r"stat::%s:\s+(\d+)" % name, text) or ["?"])[-1]
    lines = re.findall(r"^#(\d+):?\s+(?:\w+\s+)?cov: (\d+) ft: (\d+) corp: (\S+)", text, re.M)
    execs, cov, ft, corp = lines[-1] if lines else ("?",) * 4
    cpu = re.findall(r"cpu_seconds=([\d.]+)\+([\d.]+) wall_seconds=([\d.]+)", text)
    user, system, wall = cpu[-1] if cpu else ("0", "0", "?")
    found = sorted(set(re.findall(r"Test unit written to \S+/(crash|leak|timeout|oom|slow-unit)-", text)))
    forked = re.findall(r"oom/timeout/crash: (\d+)/(\d+)/(\d+)", text)  # -fork: the parent's running count
    if forked and forked[-1] != ("0", "0", "0"):
        found = ["%s OOM, %s timeouts, %s crashes" % forked[-1]]
    units = int(stat("number_of_executed_units")) if "stat::number_of_executed_units" in text else 0
    execs = max(units, int(execs) if execs != "?" else 0)
    print(f"| {target} | {execs} | {wall} | "
          f"{float(user) + float(system):.0f} | {stat('average_exec_per_sec')} | {cov} | {ft} | {corp} | "
          f"{', '.join(found) or 'none'} |")
PY
