#!/bin/bash
# Submits an SPRT across a job array of SHARDS tasks (match.sbatch) and its
# merge (match-merge.sbatch) as a job that starts once every task has
# succeeded.
#
#   NEW=./new-engine BASE=./base-engine OPENINGS=openings.epd PGN=sprt.pgn \
#       SHARDS=3 examples/slurm/run-match.sh
#
# SHARDS is the number of tasks (default 3); WAIT=1 waits for the merge to
# end (sbatch --wait) and fails if it failed. The other variables are
# match.sbatch's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${PGN:?set PGN to the games file to write}"
shards=${SHARDS:-3}
mkdir -p "${POOL:-$PGN.pool}"
array=$(sbatch --parsable --array=0-$((shards - 1)) "$here/match.sbatch")
echo "submitted array job $array ($shards tasks)"
# "Submitted batch job ID"; with WAIT=1 sbatch then waits for the merge to
# end and fails if it failed.
sbatch ${WAIT:+--wait} --dependency=afterok:"$array" "$here/match-merge.sbatch"
