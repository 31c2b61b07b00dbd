#!/usr/bin/env bash
# Times `make test`'s swift test step before and after it became one pass, back to back on this machine.
#
#   Benchmarks/test-suite/passes.sh BEFORE_CLONE AFTER_CLONE
#
# BEFORE_CLONE: a clone at eda071e (four passes), AFTER_CLONE: one at a later commit (one pass), each
# already built (`swift build --build-tests`), so only the tests are timed. Needs what `make test`
# installs (slurm-wlm, munge, nginx, the models). Logs go to $TMPDIR (default /tmp).
set -euo pipefail
before=${1:?usage: passes.sh BEFORE_CLONE AFTER_CLONE}
after=${2:?usage: passes.sh BEFORE_CLONE AFTER_CLONE}
logs=${TMPDIR:-/tmp}

timed() {  # label, then the command; prints the label, seconds and exit status
    local label=$1 start end status=0
    shift
    start=$(date +%s.%N)
    "$@" > "$logs/passes-$label.log" 2>&1 || status=$?
    end=$(date +%s.%N)
    printf '%s\t%.1f s\texit %d\n' "$label" "$(echo "$end - $start" | bc)" "$status"
}

four_passes() {
    cd "$before"
    swift test --skip-build --skip EarshotServerTests --skip EarshotClientTests --skip ServeHardeningTests \
        --skip NginxScaleOutTests --skip SlurmJobArrayTests
    swift test --skip-build --no-parallel --filter EarshotServerTests --filter EarshotClientTests \
        --filter ServeHardeningTests
    swift test --skip-build --filter NginxScaleOutTests
    EARSHOT_SLURM_TESTS=1 swift test --skip-build --filter SlurmJobArrayTests
}

one_pass() {
    cd "$after"
    EARSHOT_SLURM_TESTS=1 swift test --skip-build
}

timed before four_passes
timed after one_pass
