#!/usr/bin/env bash
# Builds every fuzz target and runs each for N seconds (default 20), starting
# from the committed seed corpus. Exits non-zero if a target crashes (the
# input is left in fuzz/artifacts/<target>/).
#
#   fuzz/run-briefly.sh [SECONDS]
#
# cargo-fuzz needs nightly compiler features: the nightly toolchain is used
# when rustup has one, otherwise stable with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-20}"

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
toolchain=()
if command -v rustup >/dev/null 2>&1 && rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

# Known false leak reports (see the file), not real leaks.
export LSAN_OPTIONS="suppressions=$PWD/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# A brief run's build is compiled for a short run: optimised less
# (opt-level 1) and in sixteen codegen units: 542 s of CPU where cargo-fuzz's
# default build takes 691 (both from nothing, on this two-core machine);
# the targets still run some 25,000 inputs a second. A long campaign
# (`cargo fuzz run TARGET`) builds as cargo-fuzz does by default.
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}"
build=(--codegen-units 16)
cargo ${toolchain[@]+"${toolchain[@]}"} fuzz build "${build[@]}"
status=0
for target in $(cargo ${toolchain[@]+"${toolchain[@]}"} fuzz list); do
    echo "== fuzz target $target: ${secs}s"
    # New inputs land in corpus/<target>/ (git ignores all but seed-*).
    # Inputs long enough for what each parser must survive: the PGN reader
    # deep nesting (25,000 variations in its seed-deep-nesting, 176 KB),
    # the others long lines.
    case "$target" in
        pgn_reader) max_len=1048576 ;;
        *) max_len=65536 ;;
    esac
    if ! cargo ${toolchain[@]+"${toolchain[@]}"} fuzz run "${build[@]}" "$target" -- \
        -max_total_time="$secs" -max_len="$max_len"; then
        echo "fuzz target $target FAILED; see fuzz/artifacts/$target/" >&2
        status=1
    fi
done
exit "$status"
