#!/bin/bash
# Submits a sharded `rookery epd analyse`: a job array of SHARDS tasks
# (analyse.sbatch) and the merge (merge.sbatch) as a job that starts once
# every task has succeeded. Prints the two job ids.
#
#   INPUT=positions.epd OUTPUT=analysed.epd SHARDS=8 LIMIT="--depth 20" \
#       examples/slurm/run.sh
#
# SHARDS is the number of tasks (default 4); WAIT=1 waits for the merge to
# end (sbatch --wait) and fails if it failed. The other variables are
# analyse.sbatch's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${INPUT:?set INPUT to the EPD file to analyse}"
: "${OUTPUT:?set OUTPUT to the EPD file to write}"
shards=${SHARDS:-4}
array=$(sbatch --parsable --array=0-$((shards - 1)) "$here/analyse.sbatch")
echo "submitted array job $array ($shards tasks)"
# "Submitted batch job ID"; with WAIT=1 sbatch then waits for the merge to
# end and fails if it failed.
sbatch ${WAIT:+--wait} --dependency=afterok:"$array" "$here/merge.sbatch"
