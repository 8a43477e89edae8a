#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The correctness suites on a busy machine: one process spinning on each CPU, at the
# tests' own priority, for as long as the suites run. A check that passes or fails on
# how fast this machine is fails here; none should (speed is for `make bench`).
#   test/busy.sh                      unit unit-san tree layers golden cli engine adapt
#                                     live arm64-user
#   TESTS="engine cli" test/busy.sh   these, as test/run.sh takes them
#   BUSY=N                            spinners (default: the online CPUs)
cd "$(dirname "$0")/.." || exit 1
n=${BUSY:-$(nproc --all)}
pids=()
stop() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < n; i++)); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "busy: $n spinning processes beside the suites"
TESTS=${TESTS:-unit unit-san tree layers golden cli engine adapt live arm64-user} test/run.sh
