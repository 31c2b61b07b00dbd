#!/usr/bin/env bash
# Runs built fuzz targets (Fuzz/build.sh) one after another, each for SECONDS, at the lowest CPU
# priority and in one process, from its seeds (Fuzz/corpus/<target>/) and saved regressions
# (Fuzz/regressions/<target>/) into a working corpus (Fuzz/.build/corpus/<target>/, not committed).
# A crash, timeout or out-of-memory input lands in Fuzz/.build/findings/<target>/; the log with
# libFuzzer's final statistics, and the CPU time used, in Fuzz/.build/logs/<target>-<UTC time>.log.
#
#   Fuzz/run.sh SECONDS TARGET…
# Exits non-zero if any target found something.
#
# FUZZ_CPU_SECONDS=N also ends each run once the fuzzer has used N seconds of CPU (read from /proc every
# few seconds; libFuzzer's own limits count wall-clock time, which at nice 19 on a shared machine says
# little about the work done). The run is ended with SIGINT, on which libFuzzer prints its final
# statistics; that ending is not a finding.
set -uo pipefail
cd "$(dirname "$0")/.."
# Swift's own crash backtracer reads the stack in a way ASan reports as an error of its own; libFuzzer
# prints the trace instead. Leaks inside the toolchain's Foundation are suppressed (see lsan.supp).
export SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp

seconds=$1
shift
status=0
for target in "$@"; do
    binary=Fuzz/.build/fuzz-$target
    [[ -x $binary ]] || { echo "$binary is not built; run Fuzz/build.sh $target" >&2; exit 2; }
    corpus=Fuzz/.build/corpus/$target findings=Fuzz/.build/findings/$target
    log=Fuzz/.build/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log
    mkdir -p "$corpus" "$findings" "$(dirname "$log")"
    # libFuzzer's -timeout is wall-clock time: at nice 19 beside a build, a fuzzer may get a few percent of
    # a core, so 10 s reported starved inputs that replay in milliseconds. 60 s still catches a hang; a
    # timeout finding is confirmed by replaying it alone (see RELIABILITY.md).
    options=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$findings/" -rss_limit_mb=2048
        -timeout=60)
    case $target in
        # Grammars and multipart bodies are allowed up to 1 MiB in a request; 64 KiB reaches every limit
        # the parsers have (the multipart header limit is 16 KiB) while keeping executions fast.
        grammar | multipart) options+=(-max_len=65536) ;;
        *) options+=(-max_len=16384) ;;
    esac
    # FoundationXML leaks a CFError for every malformed document, so leak checking (a heap scan
    # after every input that leaks) would slow the grammar target to a few executions per second.
    [[ $target == grammar ]] && options+=(-detect_leaks=0)
    # FUZZ_KEEP_GOING=1: carry on after a finding (one worker process at a time, restarted after
    # each crash) to collect every distinct one in a run, rather than stopping at the first.
    [[ ${FUZZ_KEEP_GOING:-0} == 1 ]] && options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    [[ -f Fuzz/$target.dict ]] && options+=(-dict="Fuzz/$target.dict")
    seeds=(Fuzz/corpus/"$target")
    [[ -d Fuzz/regressions/$target ]] && seeds+=(Fuzz/regressions/"$target")
    echo "fuzzing $target for ${seconds}s (log: $log)"
    # Reproduce a run with the command logged on the first line.
    echo "+ nice -n 19 $binary ${options[*]} $corpus ${seeds[*]}" >"$log"
    start=$(date +%s)
    /usr/bin/time -f "cpu_seconds=%U+%S wall_seconds=%e max_rss_kb=%M" -a -o "$log" \
        nice -n 19 "$binary" "${options[@]}" "$corpus" "${seeds[@]}" >>"$log" 2>&1 &
    timer=$!
    stopped_for_cpu=0
    if [[ -n ${FUZZ_CPU_SECONDS:-} ]]; then
        # The fuzzer is the child of time(1); its CPU is fields 14 and 15 of /proc/PID/stat, in ticks.
        ticks=$(getconf CLK_TCK)
        while kill -0 "$timer" 2>/dev/null; do
            sleep 5
            fuzzer=$(pgrep -P "$timer" | head -n 1)
            [[ -n $fuzzer ]] || continue
            used=$(awk '{ print int(($14 + $15) / '"$ticks"') }' "/proc/$fuzzer/stat" 2>/dev/null || echo 0)
            if (( used >= FUZZ_CPU_SECONDS )); then
                stopped_for_cpu=1
                kill -INT "$fuzzer"
                break
            fi
        done
    fi
    wait "$timer"
    result=$?
    # libFuzzer exits 72 after the SIGINT we sent: the CPU budget was reached, not a finding.
    if [[ $stopped_for_cpu == 1 && $result == 72 ]]; then
        echo "stopped after FUZZ_CPU_SECONDS=$FUZZ_CPU_SECONDS of CPU" >>"$log"
        result=0
    fi
    grep -E '^stat::|^cpu_seconds|^#[0-9]+ +DONE' "$log" | sed "s/^/  $target: /"
    if [[ $result -ne 0 ]]; then
        echo "  $target: FOUND A PROBLEM (exit $result) after $(( $(date +%s) - start ))s; input in $findings/, see $log" >&2
        status=1
    fi
done
exit $status
