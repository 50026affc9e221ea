#!/bin/bash
# One `dsim explore` spread over a Slurm job array: each array task searches one shard of the
# seed range (--shard I/N), and a last job, started once every task is done, merges the
# shards' JSON into what one run over the whole range prints.
#
#   sbatch --array=0-3 deploy/slurm/explore-array.sh            # the shards (N = 4)
#   MERGE=1 sbatch --dependency=afterany:JOBID deploy/slurm/explore-array.sh   # the merge
#
# Settings (environment): DSIM (the binary, default ./target/release/dsim), SCENARIO, SEEDS,
# EXTRA (more flags, the same for every shard: --bug, --set, faults), SHARDS (N), OUT (the
# folder for the shards' JSON and the counterexample). Every shard must run the same search but
# for --shard; --merge refuses a missing, repeated or foreign shard.
#SBATCH --job-name=dsim-explore
#SBATCH --cpus-per-task=2
#SBATCH --time=01:00:00
set -euo pipefail
DSIM=${DSIM:-./target/release/dsim}
SCENARIO=${SCENARIO:-search/raft-election}
SEEDS=${SEEDS:-0..1000000}
EXTRA=${EXTRA:---bug vote_twice}
SHARDS=${SHARDS:-4}
OUT=${OUT:-explore-out}
mkdir -p "$OUT"
if [ "${MERGE:-0}" = 1 ]; then
  shards=()
  for ((i = 0; i < SHARDS; i++)); do shards+=("$OUT/shard-$i.json"); done
  # Exit 1 means a counterexample was found and written: a result, not a failure.
  "$DSIM" explore --merge "${shards[@]}" --out "$OUT/found.ron" || test $? -eq 1
  exit 0
fi
I=${SLURM_ARRAY_TASK_ID:?run under sbatch --array=0-$((SHARDS - 1)), or set SLURM_ARRAY_TASK_ID}
# shellcheck disable=SC2086 # EXTRA is a list of flags.
"$DSIM" explore "$SCENARIO" $EXTRA --seeds "$SEEDS" --shard "$I/$SHARDS" --json \
  > "$OUT/shard-$I.json.tmp" || test $? -eq 1
mv "$OUT/shard-$I.json.tmp" "$OUT/shard-$I.json"
