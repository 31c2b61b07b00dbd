#!/bin/bash
# Earshot's corpus jobs on Slurm: `earshot eval` (or `sweep`) as a job array of SHARDS tasks, each
# scoring one shard into a partial result, then one merge job that starts only when every task has
# succeeded (--dependency=afterok) and writes the report one unsharded run would print.
#
# Run it, from the folder the paths below are relative to (jobs start there too):
#
#   CORPUS=corpora/build/noisy SHARDS=8 Examples/slurm/earshot-array.sh
#
# which submits, as you would by hand:
#
#   sbatch --array=1-8 Examples/slurm/earshot-array.sh       # the shards; prints JOBID
#   sbatch --dependency=afterok:JOBID Examples/slurm/earshot-array.sh   # the merge
#
# Edit the defaults below, or set the variables when submitting (sbatch passes the environment on).
# A task knows its shard from SLURM_ARRAY_TASK_ID; a job without one is the merge.
#
#SBATCH --job-name=earshot
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=02:00:00
set -euo pipefail

EARSHOT=${EARSHOT:-earshot}                 # the binary (same version on every node: parts record it)
COMMAND=${COMMAND:-eval}                    # eval or sweep
CORPUS=${CORPUS:-corpora/build/noisy}       # a corpus folder holding manifest.jsonl
ARGS=${ARGS:---detector spectral}           # options of the run (sweep: its --grid), split on spaces
SHARDS=${SHARDS:-4}                         # N: the array is 1-N
OUT=${OUT:-earshot-$COMMAND}                # parts in OUT/parts/, logs in OUT/logs/, the report in OUT/
FORMAT=${FORMAT:-json}                      # the report: text or json (eval), csv or json (sweep)
export EARSHOT COMMAND CORPUS ARGS SHARDS OUT FORMAT

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # One task of the array: shard I of N, on the cores Slurm gave it.
    # shellcheck disable=SC2086  # ARGS is a list of options
    exec "$EARSHOT" "$COMMAND" $ARGS --shard "$SLURM_ARRAY_TASK_ID/$SHARDS" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
        --progress none -o "$OUT/parts/$COMMAND.$SLURM_ARRAY_TASK_ID.json" "$CORPUS"
elif [ -n "${SLURM_JOB_ID:-}" ]; then
    # The merge: every part by name, so a missing one is reported as such rather than skipped.
    parts=()
    for shard in $(seq 1 "$SHARDS"); do parts+=("$OUT/parts/$COMMAND.$shard.json"); done
    exec "$EARSHOT" "$COMMAND" --merge "${parts[@]}" --format "$FORMAT" -o "$OUT/$COMMAND.$FORMAT"
else
    # Not inside a job: submit the array, then the merge that waits for all of it.
    mkdir -p "$OUT/parts" "$OUT/logs"
    array=$(sbatch --parsable --array="1-$SHARDS" --output="$OUT/logs/shard-%a.log" "$0")
    array=${array%%;*}  # --parsable gives JOBID or JOBID;CLUSTER
    merge=$(sbatch --parsable --dependency="afterok:$array" --output="$OUT/logs/merge.log" "$0")
    merge=${merge%%;*}
    echo "submitted shards $array (1-$SHARDS) and merge $merge: $OUT/$COMMAND.$FORMAT when done"
fi
