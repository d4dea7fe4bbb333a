#!/bin/sh
# SPDX-License-Identifier: MIT
# The accelc CLI: compile to a program binary, list it back, extract its
# code, and refuse what is not a binary. usage: test-cli.sh ACCELC
set -eu
accelc=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/accelc-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export ACCEL_CACHE_DIR="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/k.cl" <<'CL'
kernel __attribute__((reqd_work_group_size(2, 1, 1)))
void k(global const float *restrict x, local int *t, float4 v)
{
	t[0] = (int)(x[0] + v.y);
}
CL
"$accelc" -v -o "$tmp/k.bin" "$tmp/k.cl" 2> "$tmp/err" || fail "build"
grep -q "cache: miss" "$tmp/err" || fail "first build not a miss"
for step in clang link-builtins optimise emit-object link codegen-process; do
	grep -q "^accelc: time: $step [0-9.]* ms$" "$tmp/err" ||
		fail "no time for $step: $(cat "$tmp/err")"
done
"$accelc" -v -o "$tmp/k2.bin" "$tmp/k.cl" 2> "$tmp/err" || fail "rebuild"
grep -q "cache: hit" "$tmp/err" || fail "second build not a hit"
if grep -q "time:" "$tmp/err"; then fail "times for a cache hit"; fi
cmp -s "$tmp/k.bin" "$tmp/k2.bin" || fail "a hit gives other bytes"
head -c 8 "$tmp/k.bin" | grep -q ACCELBIN || fail "no container magic"

# listing the binary says what listing the build says
"$accelc" -l --no-cache "$tmp/k.cl" > "$tmp/src.txt" 2>/dev/null
"$accelc" -l --shared-object "$tmp/k.so" "$tmp/k.bin" > "$tmp/bin.txt" ||
	fail "list the binary"
cmp -s "$tmp/src.txt" "$tmp/bin.txt" || fail "listings differ"
grep -q "^kernel k " "$tmp/bin.txt" || fail "kernel missing"
grep -q "reqd_work_group_size(2, 1, 1)" "$tmp/bin.txt" || fail "reqd missing"
grep -q "const restrict global float\* x: buffer" "$tmp/bin.txt" ||
	fail "argument 0"
grep -q "local int\* t: local" "$tmp/bin.txt" || fail "argument 1"
grep -q "float4 v: value, 16 bytes, align 16" "$tmp/bin.txt" ||
	fail "argument 2"
head -c 4 "$tmp/k.so" | grep -q ELF || fail "--shared-object is not ELF"

# damaged, truncated and unknown inputs fail cleanly
printf 'ACCELBINjunk' > "$tmp/junk.bin"
if "$accelc" -l "$tmp/junk.bin" 2> "$tmp/err"; then fail "junk accepted"; fi
grep -q "program binary" "$tmp/err" || fail "no reason given"
head -c 300 "$tmp/k.bin" > "$tmp/short.bin"
if "$accelc" -l "$tmp/short.bin" 2>/dev/null; then fail "truncated accepted"; fi
# IR and assembly need source
if "$accelc" --emit-llvm - "$tmp/k.bin" 2>/dev/null; then
	fail "IR from a binary"
fi
"$accelc" --emit-llvm - --emit-asm "$tmp/k.s" "$tmp/k.cl" > "$tmp/k.ll" ||
	fail "IR and assembly"
grep -q "define .*k__wg" "$tmp/k.ll" || fail "no work-group function in IR"
grep -q "k__wg" "$tmp/k.s" || fail "no work-group function in assembly"
# the deadline covers LLVM's passes: minutes of unrolling end in an error
cat > "$tmp/unroll.cl" <<'CL'
kernel void k(global int *o)
{
	int s = o[0];
#pragma unroll 100000
	for (int i = 0; i < 100000; i++)
		s = s * 31 + o[i & 7] + i;
	o[get_global_id(0)] = s;
}
CL
if "$accelc" --no-cache --timeout 5000 -l "$tmp/unroll.cl" 2> "$tmp/err"
then
	fail "unrolled build beat the deadline"
fi
grep -q "did not finish within the deadline of 5000 ms" "$tmp/err" ||
	fail "no deadline in the log"
if "$accelc" --timeout 0 "$tmp/k.cl" 2>/dev/null; then fail "timeout 0"; fi

# no runtime unrolling, whatever the CPU's scheduling model would allow
# (znver3's: 512 micro-ops); it leaves .prol/.epil/.unr blocks behind
if "$accelc" --list-targets | grep -q "^x86-64 "; then
	cat > "$tmp/loop.cl" <<'CL'
kernel void k(global const int *restrict x, global int *restrict o, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s = s * 31 + x[i];
	o[get_global_id(0)] = s;
}
CL
	"$accelc" --no-cache -t znver3 --emit-llvm "$tmp/loop.ll" \
		"$tmp/loop.cl" > /dev/null 2>&1 || fail "build for znver3"
	grep -q "define .*k__wg" "$tmp/loop.ll" || fail "no IR for znver3"
	if grep -q -E '\.(prol|epil|unr)' "$tmp/loop.ll"; then
		fail "loops unrolled at run time"
	fi
fi

# a build error names the file, #include "..." finds files beside it
mkdir "$tmp/src"
printf '#define VAL 42\n' > "$tmp/src/val.h"
printf '#include "val.h"\nkernel void k(global int *y) { y[0] = VAL + nope; }\n' \
	> "$tmp/src/bad.cl"
if (cd "$tmp" && "$accelc" --no-cache -l src/bad.cl 2> "$tmp/err"); then
	fail "undeclared identifier built"
fi
grep -q "^src/bad.cl:2:45: error: use of undeclared identifier 'nope'" \
	"$tmp/err" || fail "error not in terms of the file: $(cat "$tmp/err")"
grep -q "^accelc: src/bad.cl: build failed$" "$tmp/err" ||
	fail "no build-failed line: $(cat "$tmp/err")"
if grep -q "<source>\|Exec format" "$tmp/err"; then
	fail "internal names in the log: $(cat "$tmp/err")"
fi
sed 's/ + nope//' "$tmp/src/bad.cl" > "$tmp/src/good.cl"
"$accelc" --no-cache -l -b "-DUNUSED=1" "$tmp/src/good.cl" > /dev/null ||
	fail "#include beside the file"
echo "PASS"
