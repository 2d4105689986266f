#!/usr/bin/env bash
# Scale of the game core: GAMES games at once (default 64) between two
# rookery-mock-engine processes per game that answer instantly (nodes=1,
# each plays a legal move drawn from the position, so games differ and run
# to a rule ending). Prints games, plies, wall time, moves per second through
# the referee, its own time per move and the peak memory of `rookery match`
# (the engines are separate processes, not counted).
#
# Usage: crates/cli/tests/scripts/match_scale.sh [GAMES] [PROFILE]
#   PROFILE: the target/ directory to take the binaries from (default: release;
#   build them first with `cargo build --release -p rookery -p rookery-testkit`).
#   NO_SYNC=1: pass --no-sync (the journal is not synced to disk after each move).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
games="${1:-64}"
profile="${2:-release}"
rookery="target/$profile/rookery"
mock="target/$profile/rookery-mock-engine"
for b in "$rookery" "$mock"; do
  [ -x "$b" ] || { echo "missing $b: cargo build --profile $profile -p rookery -p rookery-testkit" >&2; exit 2; }
done
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
rounds=$(( (games + 1) / 2 ))
/usr/bin/time -v "$rookery" match \
  --engine cmd="$mock" name=m1 arg=--random arg=1 \
  --engine cmd="$mock" name=m2 arg=--random arg=2 \
  --each nodes=1 --rounds "$rounds" --games 2 --concurrency "$games" \
  --openings file=crates/cli/tests/data/openings-small.epd order=random --srand 5 \
  ${NO_SYNC:+--no-sync} --ratinginterval 100000 --pgnout "$dir/s.pgn" >"$dir/out" 2>"$dir/time"
plies=$(grep '^\[PlyCount ' "$dir/s.pgn" | tr -dc '0-9\n' | awk '{s+=$1} END {print s}')
played=$(grep -c '^\[Event ' "$dir/s.pgn")
wall=$(grep 'Elapsed (wall clock)' "$dir/time" | awk '{print $NF}')
secs=$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
rss=$(grep 'Maximum resident set size' "$dir/time" | awk '{print $NF}')
echo "games: $played at once: $games"
echo "plies: $plies"
echo "wall: ${secs}s"
echo "moves/s: $(awk -v p="$plies" -v s="$secs" 'BEGIN { printf "%.0f", p / s }')"
grep 'Referee time per move' "$dir/out" || true
echo "peak RSS of rookery match: ${rss} kB"
