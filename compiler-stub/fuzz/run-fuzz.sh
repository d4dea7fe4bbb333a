#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the binary-parser fuzzer with clang's libFuzzer and ASan/UBSan, and
# run it for a bounded number of inputs over seeds made by accelc.
# usage: run-fuzz.sh CLANG SOURCE_DIR BUILD_DIR ACCELC [RUNS]
# With FUZZ_SECONDS set, it runs for that many seconds instead of RUNS
# inputs (tests/fuzz/run-fuzzers.sh).
# Exit 77 (skip) when clang cannot link a libFuzzer program at all.
set -u
clang=$1 src=$2 build=$3 accelc=$4 runs=${5:-20000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/accelc-fuzz-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' > "$tmp/probe.c"
if ! "$clang" $flags "$tmp/probe.c" -o "$tmp/probe" 2> "$tmp/probe.log"; then
	cat "$tmp/probe.log"
	echo "SKIP: $clang cannot build libFuzzer programs" \
	     "(libclang-rt-16-dev missing?)"
	exit 77
fi
"$clang" $flags -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-I"$src/compiler-stub" -I"$src/compiler-stub/cache" -I"$src/include" \
	-I"$build/include" "$src/compiler-stub/fuzz/fuzz-binary.c" \
	"$src/compiler-stub/cache/binary.c" "$src/compiler-stub/cache/sha256.c" \
	-lcrypto -o "$tmp/fuzz" || exit 1

# seeds: real containers with every kind of argument and attribute
mkdir -p "$tmp/seeds" "$tmp/corpus"
cat > "$tmp/a.cl" <<'CL'
typedef struct { int a; float b; } S;
kernel __attribute__((reqd_work_group_size(8, 1, 1)))
__attribute__((vec_type_hint(float4)))
void a(global const float *restrict x, constant int *c, local float *t,
       S s, float4 v, volatile global int *w)
{
	local int n[4];
	t[get_local_id(0)] = x[0] + s.b + v.w;
	n[0] = c[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	w[0] = n[0] + s.a;
}
kernel __attribute__((work_group_size_hint(4, 2, 1))) void b(void) {}
CL
echo 'kernel void k(global int *o) { o[0] = 1; }' > "$tmp/b.cl"
for f in a b; do
	ACCEL_CACHE=0 "$accelc" -o "$tmp/seeds/$f.bin" "$tmp/$f.cl" || exit 1
done
# the seeds themselves must parse (and survive the round trip)
"$tmp/fuzz" -runs=0 "$tmp/seeds" || exit 1
# not exec: the trap removes $tmp afterwards
if [ -n "${FUZZ_SECONDS:-}" ]; then
	limit="-max_total_time=$FUZZ_SECONDS"
else
	limit="-runs=$runs -seed=1"
fi
# shellcheck disable=SC2086  # $limit holds one or two flags
"$tmp/fuzz" $limit -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus" "$tmp/seeds"
