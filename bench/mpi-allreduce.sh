#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/mpi-allreduce across two nodes of the kernel-tier VM, once per
# transport (tests/kernel/mpi-nodes.sh). Run it through vm-run.sh:
#
#   tests/kernel/vm-run.sh --memory 2G --timeout 1800 -- \
#       bash bench/mpi-allreduce.sh build/bench/mpi-allreduce [-t S] [-M MAX]
#
# TRANSPORTS  which of rc, ud, tcp (default: "rc tcp")
# NP          ranks, spread over the two nodes (default 2: one per node)
# Arguments after the program go to it.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 BENCH-PROGRAM [ARGS...]" >&2; exit 2; }
nodes=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/kernel" && pwd)/mpi-nodes.sh
prog=$(realpath "$1")
shift

bash "$nodes" up
for t in ${TRANSPORTS:-rc tcp}; do
	echo "=== $t"
	bash "$nodes" mpirun "$t" -np "${NP:-2}" "$prog" "$@"
done
