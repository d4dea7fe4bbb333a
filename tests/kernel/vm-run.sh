#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vm-run.sh [options] [--] <command> [args...]
# vm-run.sh [options] --batch <file>
#
# Runs a host-built command inside Debian's 6.12 kernel under QEMU (TCG),
# with the host's / as the guest's root (read-only underneath, writes
# discarded), in the same working directory, and returns its exit code.
# With --arch arm64 the guest is an arm64 one (qemu-system-aarch64, the
# virt machine) whose root is the arm64 sysroot instead of the host's /.
# See README.md in this folder.
#
# Options:
#   --cache DIR      kernel cache (vm-prepare.sh); default $ACCEL_KERNEL_CACHE
#                    or ~/.cache/libaccel-kernel
#   --arch amd64|arm64
#                    the guest's architecture (default amd64)
#   --sysroot DIR    arm64: the unpacked arm64 Debian tree that gives the
#                    kernel, its modules and the guest's root
#   --ro DIR         make host directory DIR visible read-only in the
#                    guest at the same path (repeatable; no spaces; for an
#                    arm64 guest, whose root is not the host's /)
#   --timeout S      whole run, boot included (default 300)
#   --env NAME=VALUE extra environment for the command (repeatable)
#   --batch FILE     run every line of FILE (bash syntax; blank lines and
#                    # comments skipped) in one boot
#   --rw DIR         make host directory DIR writable for real in the guest
#                    (repeatable; no spaces in the path)
#   --results DIR    keep console.log, dmesg.txt, qemu.log and results there
#                    (default: a temporary folder, kept only on failure)
#   --no-rdma        do not set up soft-RoCE (rxe0)
#   --memory SIZE    guest memory (default 1G)
#   --tcg-thread single|multi
#                    QEMU's TCG threading (default single, see README.md)
#   --device SPEC    add a QEMU device, passed as -device SPEC (repeatable;
#                    e.g. edu, the PCI device refaccel's edu personality
#                    drives)
#   --iommu          a virtual IOMMU: the q35 machine with -device
#                    intel-iommu, the guest booted with intel_iommu=on
#                    iommu.strict=1 (device addresses are IOVAs); arm64:
#                    the virt machine's SMMUv3 (iommu=smmuv3) in front of
#                    every PCI device, iommu.strict=1
#
# Exit codes: the command's own (batch: 0 if all passed, 77 if all were
# skipped, else the first failure's), 77 cannot run here, 124 timeout,
# 125 guest crashed or gave no result, 126 kernel WARNING/BUG/Oops in the
# guest's log.

set -uo pipefail

# For one more boot after an emulator fault at boot (see the end).
orig_args=("$@")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
prog=vm-run

EXIT_SKIP=77
EXIT_TIMEOUT=124
EXIT_NORESULT=125
EXIT_KERNEL=126

# Seconds kept after the command's deadline for saving dmesg and
# powering off, and for QEMU to start before the guest clock runs.
MARGIN=15

# Environment passed into the guest when set on the host: what decides
# how tests find things and report.  Everything else starts clean.
ENV_PASS="PATH LD_LIBRARY_PATH TERM LANG LC_ALL TZ
	CMOCKA_MESSAGE_OUTPUT CMOCKA_XML_FILE CMOCKA_TEST_ABORT
	ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS MALLOC_CHECK_ MALLOC_PERTURB_
	OCL_ICD_VENDORS OCL_ICD_FILENAMES CTEST_INTERACTIVE_DEBUG_MODE"
# ... and every variable whose name starts with one of these.
ENV_PREFIXES="ACCEL_ LIBACCEL_"

usage() {
	sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
die() { echo "$prog: error: $*" >&2; exit 1; }
skip() { echo "$prog: SKIP: $*" >&2; exit $EXIT_SKIP; }

cache=${ACCEL_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libaccel-kernel}
timeout=300
batch=
results=
rdma=1
memory=1G
# Multi-threaded TCG let the 6.12 guest hit an int3 it had already
# patched away (Oops in sched_clock_cpu at boot, about 1 boot in 10 on a
# loaded host): cross-vCPU code patching is not reliable there.  One
# host thread for both vCPUs costs little: boot is serial anyway.
tcg_thread=single
extra_env=()
rw_dirs=()
devices=()
ro_dirs=()
iommu=0
arch=amd64
sysroot=

while [ $# -gt 0 ]; do
	case $1 in
	--cache) cache=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--env) extra_env+=("${2:?}"); shift 2 ;;
	--batch) batch=${2:?}; shift 2 ;;
	--rw) rw_dirs+=("${2:?}"); shift 2 ;;
	--ro) ro_dirs+=("${2:?}"); shift 2 ;;
	--arch) arch=${2:?}; shift 2 ;;
	--sysroot) sysroot=${2:?}; shift 2 ;;
	--results) results=${2:?}; shift 2 ;;
	--no-rdma) rdma=0; shift ;;
	--memory) memory=${2:?}; shift 2 ;;
	--tcg-thread) tcg_thread=${2:?}; shift 2 ;;
	--device) devices+=("${2:?}"); shift 2 ;;
	--iommu) iommu=1; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "$prog: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
if [ -n "$batch" ]; then
	[ $# -eq 0 ] || die "--batch and a command are exclusive"
	[ -r "$batch" ] || die "cannot read batch file $batch"
else
	[ $# -gt 0 ] || usage
fi
case $tcg_thread in
single|multi) ;;
*) die "--tcg-thread wants single or multi" ;;
esac
[[ $timeout =~ ^[0-9]+$ ]] && [ "$timeout" -gt $((MARGIN + 5)) ] ||
	die "--timeout must be a number of seconds above $((MARGIN + 5))"

case $arch in
amd64) prep_args=() ;;
arm64)
	[ -n "$sysroot" ] || die "--arch arm64 needs --sysroot"
	prep_args=(--arch arm64 --sysroot "$sysroot")
	;;
*) die "--arch wants amd64 or arm64" ;;
esac
bash "$here/vm-prepare.sh" "$cache" "${prep_args[@]}"
rc=$?
[ $rc = 0 ] || exit $rc
cache=$(cd "$cache" && pwd -P)
ROOTFS=/
# shellcheck disable=SC1091
. "$cache/vm.env"

if [ "$arch" = arm64 ]; then
	qemu=$(command -v qemu-system-aarch64) ||
		skip "qemu-system-aarch64 not found (qemu-system-arm)"
else
	qemu=$(command -v qemu-system-x86_64) ||
		skip "qemu-system-x86_64 not found"
fi

# --- The transfer share ----------------------------------------------------

work=$(mktemp -d "${TMPDIR:-/tmp}/accel-vm.XXXXXX") || die "mktemp failed"
xfer=$work/xfer
mkdir "$xfer"
chmod 0755 "$work" "$xfer"

qemu_pid=
cat_pids=()
cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	for p in "${cat_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
}
# Interrupted (ctest's own timeout, ^C): nothing worth keeping.
trap 'cleanup; rm -rf "$work"; exit 130' INT
trap 'cleanup; rm -rf "$work"; exit 143' TERM HUP
trap cleanup EXIT

# vm.conf is read by busybox sh too: plain values only.
for d in "${rw_dirs[@]}" "${ro_dirs[@]}" "$PWD" "$MODROOT"; do
	case $d in
	*[[:space:]\'\"\$\`\\]*) die "path not supported in the guest: '$d'" ;;
	esac
done
rw_abs=()
for d in "${rw_dirs[@]}"; do
	[ -d "$d" ] || die "--rw $d: not a directory"
	rw_abs+=("$(cd "$d" && pwd -P)")
done
ro_abs=()
for d in "${ro_dirs[@]}"; do
	[ -d "$d" ] || die "--ro $d: not a directory"
	ro_abs+=("$(cd "$d" && pwd -P)")
done
# The guest kernel's config, at its path in the guest (whose root is
# ROOTFS): tests tell a feature the kernel lacks from a failure by it.
kconfig=$MODROOT/boot/config-$KVER
[ "$ROOTFS" = / ] || kconfig=/${kconfig#"$ROOTFS"/}
cat >"$xfer/vm.conf" <<EOF
KVER='$KVER'
MODROOT='$MODROOT'
CWD='$PWD'
TIMEOUT=$timeout
MARGIN=$MARGIN
RDMA=$rdma
RW_DIRS='${rw_abs[*]}'
RO_DIRS='${ro_abs[*]}'
KCONFIG='$kconfig'
EOF

{
	for name in $ENV_PASS; do
		[ -n "${!name+x}" ] && printf 'export %s=%q\n' "$name" "${!name}"
	done
	for prefix in $ENV_PREFIXES; do
		for name in $(compgen -e "$prefix"); do
			printf 'export %s=%q\n' "$name" "${!name}"
		done
	done
	for kv in "${extra_env[@]}"; do
		[[ $kv =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
			die "--env wants NAME=VALUE, not '$kv'"
		printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"
	done
} >"$xfer/env.sh"

if [ -n "$batch" ]; then
	cp "$batch" "$xfer/commands"
else
	printf '%q ' "$@" >"$xfer/commands"
	echo >>"$xfer/commands"
fi
cp "$here/guest-init.sh" "$here/guest-run.sh" "$xfer/"

# --- Boot --------------------------------------------------------------------

# The command's output is streamed through FIFOs as it comes; QEMU opens
# them for writing (O_TRUNC means nothing to a FIFO).
mkfifo "$work/stdout.fifo" "$work/stderr.fifo"
cat "$work/stdout.fifo" &
cat_pids+=($!)
cat "$work/stderr.fifo" >&2 &
cat_pids+=($!)

# quiet: the emulated UART is slow, and the whole log is saved from
# inside anyway.  panic=-1 turns a panic into a quick exit (-no-reboot).
if [ "$arch" = arm64 ]; then
	cmdline="console=ttyAMA0 quiet loglevel=4 panic=-1"
else
	cmdline="console=ttyS0 quiet loglevel=4 panic=-1"
fi
cmdline+=" mitigations=off no_timer_check random.trust_cpu=on"

# Under TCG the guest reads the host's own TSC, but calibrating it
# against the emulated PIT goes wrong when the host is busy (seen:
# 190 MHz instead of 2596, so guest time ran 13 times too fast and the
# boot "timed out").  Tell the kernel the frequency instead: the guest's
# own refined value from an earlier boot, else what the host's kernel
# found.  The kernel still refines it, and its clocksource watchdog
# still checks the TSC against the HPET.
# (arm64's generic timer has a fixed frequency QEMU states.)
tsc_khz=
[ -r "$cache/tsc-khz" ] && read -r tsc_khz <"$cache/tsc-khz"
cached_tsc_khz=$tsc_khz
if [ "$arch" = arm64 ]; then
	tsc_khz=none
elif ! [[ $tsc_khz =~ ^[0-9]{6,8}$ ]]; then
	tsc_khz=$(dmesg 2>/dev/null | grep -E 'tsc: (Refined TSC|Detected)' |
		sort -t: -k2,2 | tail -n1 | grep -oE '[0-9]+\.[0-9]{3} MHz' |
		tr -d '. MHz')
fi
if [[ $tsc_khz =~ ^[0-9]{6,8}$ ]]; then
	cmdline+=" tsc_early_khz=$tsc_khz"
fi

# intel-iommu exists on q35 only; strict mode unmaps at once, so a
# device address used after its unmap faults. arm64's virt machine has
# an SMMUv3 of its own (strict is Debian's default there too).
machine=pc
[ "$arch" = arm64 ] && machine=virt
if [ "$iommu" = 1 ] && [ "$arch" = arm64 ]; then
	machine=virt,iommu=smmuv3
	cmdline+=" iommu.strict=1"
elif [ "$iommu" = 1 ]; then
	machine=q35
	cmdline+=" intel_iommu=on iommu.strict=1"
	devices=(intel-iommu "${devices[@]}")
fi

args=(
	-nodefaults -no-user-config -nographic
	-machine "$machine" -accel "tcg,thread=$tcg_thread" -cpu max -smp 2
	-m "$memory"
	-no-reboot
	-kernel "$KERNEL" -initrd "$INITRD" -append "$cmdline"
	-serial "file:$work/console.log"
	-virtfs "local,path=$ROOTFS,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$xfer,mount_tag=xfer,security_model=none,multidevs=remap"
	-device virtio-serial-pci,id=vser
	-chardev "file,id=out,path=$work/stdout.fifo"
	-device virtserialport,bus=vser.0,nr=1,chardev=out,name=accel.stdout
	-chardev "file,id=err,path=$work/stderr.fifo"
	-device virtserialport,bus=vser.0,nr=2,chardev=err,name=accel.stderr
)
# qboot skips the BIOS's long PCI/option-ROM walk: boots start faster.
# (The arm64 virt machine boots the kernel directly, with no firmware.)
[ "$arch" = amd64 ] && [ -f /usr/share/qemu/qboot.rom ] &&
	args+=(-bios /usr/share/qemu/qboot.rom)
for d in "${devices[@]}"; do
	args+=(-device "$d")
done
i=0
for d in "${rw_abs[@]}"; do
	i=$((i + 1))
	args+=(-virtfs "local,path=$d,mount_tag=rw$i,security_model=none,multidevs=remap")
done
i=0
for d in "${ro_abs[@]}"; do
	i=$((i + 1))
	args+=(-virtfs "local,path=$d,mount_tag=ro$i,security_model=none,readonly=on,multidevs=remap")
done

# A boot under TCG takes seconds with nothing to show: say what runs.
echo "$prog: booting $KVER under $(basename "$qemu") (TCG, ${memory} of memory${devices[*]:+, ${devices[*]}}), timeout ${timeout}s" >&2
start=$(date +%s%N)
"$qemu" "${args[@]}" </dev/null >"$work/qemu.log" 2>&1 &
qemu_pid=$!

# Our own timeout (not timeout(1)) so that a TERM from ctest reaches
# QEMU through the trap above.
timed_out=0
deadline=$(( $(date +%s) + timeout ))
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		kill "$qemu_pid" 2>/dev/null
		sleep 2
		kill -9 "$qemu_pid" 2>/dev/null
		break
	fi
	sleep 0.2
done
wait "$qemu_pid" 2>/dev/null
qemu_rc=$?
qemu_pid=
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
# QEMU has closed the FIFOs, and the readers end once they have drained
# them; but a QEMU that died before opening them leaves them waiting.
for _ in 1 2 3 4 5 6 7 8 9 10; do
	alive=0
	for p in "${cat_pids[@]}"; do
		kill -0 "$p" 2>/dev/null && alive=1
	done
	[ "$alive" = 0 ] && break
	sleep 0.2
done
cleanup
cat_pids=()

# Remember the guest's own refined TSC frequency for the next boot.
refined=$(grep -oE 'Refined TSC clocksource calibration: [0-9]+\.[0-9]{3} MHz' \
	"$xfer/dmesg.txt" 2>/dev/null | grep -oE '[0-9]+\.[0-9]{3}' | tr -d .)
if [[ $refined =~ ^[0-9]{6,8}$ ]] && [ "$refined" != "$cached_tsc_khz" ]; then
	echo "$refined" >"$cache/tsc-khz.$$" 2>/dev/null &&
		mv "$cache/tsc-khz.$$" "$cache/tsc-khz" 2>/dev/null
	rm -f "$cache/tsc-khz.$$" 2>/dev/null
fi

# --- Verdict -----------------------------------------------------------------

log=$xfer/dmesg.txt
[ -s "$log" ] || log=$work/console.log

kernel_tail() {
	echo "$prog: --- end of the guest kernel log ---" >&2
	tail -n 30 "$log" >&2
	echo "$prog: ---" >&2
}

verdict=
if [ "$timed_out" = 1 ]; then
	echo "$prog: timeout: no result after ${timeout}s" >&2
	verdict=$EXIT_TIMEOUT
elif [ -f "$xfer/timed-out" ]; then
	n=$(wc -l 2>/dev/null <"$xfer/results" || echo 0)
	echo "$prog: timeout: the guest ran out of time in command $((n + 1))" \
		"(--timeout $timeout)" >&2
	verdict=$EXIT_TIMEOUT
elif [ ! -f "$xfer/done" ]; then
	echo "$prog: the guest gave no result (panic or crash; QEMU exit $qemu_rc)" >&2
	sed 's/^/qemu: /' "$work/qemu.log" >&2
	verdict=$EXIT_NORESULT
fi

# Later tests rely on this: any kernel splat fails the run, whatever the
# command said.
splats=$(grep -hE 'WARNING:|BUG:|Oops|general protection' \
	"$xfer/dmesg.txt" "$work/console.log" 2>/dev/null | awk '!seen[$0]++')
if [ -n "$splats" ] && [ -z "$verdict" ]; then
	echo "$prog: the guest kernel complained:" >&2
	echo "$splats" >&2
	verdict=$EXIT_KERNEL
fi

if [ -z "$verdict" ]; then
	# One "<rc> <n>" line per command that ran.
	ran=0 passed=0 skipped=0 first_fail=
	while read -r rc n; do
		ran=$((ran + 1))
		case $rc in
		0) passed=$((passed + 1)) ;;
		"$EXIT_SKIP") skipped=$((skipped + 1)) ;;
		*) [ -n "$first_fail" ] || first_fail=$rc ;;
		esac
		if [ -n "$batch" ] && [ "$rc" != 0 ]; then
			echo "$prog: command $n exited with $rc" >&2
		fi
	done < <(cat "$xfer/results" 2>/dev/null)
	if [ "$ran" = 0 ]; then
		echo "$prog: no command ran in the guest" >&2
		verdict=$EXIT_NORESULT
	elif [ -n "$first_fail" ]; then
		verdict=$first_fail
	elif [ "$skipped" = "$ran" ]; then
		verdict=$EXIT_SKIP
	else
		verdict=0
	fi
fi

case $verdict in
0|"$EXIT_SKIP") ;;
*) kernel_tail ;;
esac
echo "$prog: kernel $KVER, ${elapsed} ms in QEMU, exit $verdict" >&2

# Every splat logged before guest-run.sh started the first command: the
# boot's own (TCG has faulted in the guest's boot code on a loaded host,
# e.g. an unexpected #DB in exc_debug_kernel while guest-init set up
# rxe), nothing a test did. Such a run boots once more.
boot_only_splats() {
	local start

	start=$(sed -n 's/^\[ *\([0-9.]*\)\] guest-run: running commands.*/\1/p' \
		"$xfer/dmesg.txt" 2>/dev/null | head -n 1)
	[ -n "$start" ] || return 1
	awk -v s="$start" '
		match($0, /^\[ *[0-9.]+\]/) {
			t = substr($0, 2, RLENGTH - 2) + 0
			if (t >= s + 0)
				late = 1
			next
		}
		{ late = 1 }
		END { exit late }' <<<"$splats"
}
if [ "$verdict" = "$EXIT_KERNEL" ] && [ -z "${ACCEL_VM_REBOOTED:-}" ] &&
	boot_only_splats; then
	echo "$prog: the kernel complained before the first command ran:" \
		"booting once more" >&2
	rm -rf "$work"
	trap - EXIT
	ACCEL_VM_REBOOTED=1 exec bash "$0" "${orig_args[@]}"
fi

if [ -n "$results" ]; then
	mkdir -p "$results"
	rm -f "$results"/{console.log,qemu.log,dmesg.txt,results,commands}
	cp "$work/console.log" "$work/qemu.log" "$results/" 2>/dev/null
	cp "$xfer/dmesg.txt" "$xfer/results" "$xfer/commands" "$results/" \
		2>/dev/null
	echo "$verdict" >"$results/exit"
	rm -rf "$work"
	keep=$results
elif [ "$verdict" = 0 ] || [ "$verdict" = "$EXIT_SKIP" ]; then
	rm -rf "$work"
	keep=
else
	keep=$work
fi
[ -z "$keep" ] || echo "$prog: logs in $keep" >&2
exit "$verdict"
