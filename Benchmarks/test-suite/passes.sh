#!/usr/bin/env bash
# Times `make test`'s swift test step of several commits, back to back on this machine: for each clone,
# the `swift test` commands its own Makefile's `test` recipe runs (one pass, or several), in order.
#
#   Benchmarks/test-suite/passes.sh CLONE [CLONE ...]
#
# Each CLONE is a clone at the commit to time, already built (`swift build --build-tests`), so only
# the tests are timed (`--skip-build` is added where a command lacks it). Needs what `make test`
# installs (slurm-wlm, munge, nginx, the models). Prints a line per clone: its commit, how many
# `swift test` passes its recipe has, the seconds they took together, and the exit status of the
# first that failed. Logs go to $TMPDIR (default /tmp) as passes-<commit>.log.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: passes.sh CLONE [CLONE ...]" >&2; exit 2; }
logs=${TMPDIR:-/tmp}

# The recipe's swift test commands as make expands them (`make -n` prints them without running them,
# its variables and environment assignments filled in), each with --skip-build.
commands() {
    make --no-print-directory -C "$1" -n test 2>/dev/null | grep 'swift test' |
        sed -E '/--skip-build/! s/swift test/swift test --skip-build/'
}

for clone in "$@"; do
    commit=$(git -C "$clone" rev-parse --short HEAD)
    mapfile -t passes < <(commands "$clone")
    status=0
    start=$(date +%s.%N)
    for pass in "${passes[@]}"; do
        rc=0
        (cd "$clone" && bash -c "$pass") >> "$logs/passes-$commit.log" 2>&1 || rc=$?
        [ "$status" -ne 0 ] || status=$rc
    done
    end=$(date +%s.%N)
    printf '%s\t%d passes\t%.1f s\texit %d\n' "$commit" "${#passes[@]}" "$(echo "$end - $start" | bc)" "$status"
done
