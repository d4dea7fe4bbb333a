#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Guest, stage 2: runs chrooted into the overlay of the host's /, with a
# clean environment, from the transfer share (/run/vm-xfer here).  Runs
# each line of "commands" in the host's working directory, its stdout and
# stderr on the virtio serial ports named accel.stdout / accel.stderr
# (vm-run.sh streams them to its own stdout and stderr), and writes
# "<exit code> <line number>" for each into "results", then "done".
# The time limit is stage 1's (guest-init.sh).
# Its own messages go to the kernel console.

X=/run/vm-xfer
# shellcheck disable=SC1091
. "$X/vm.conf"

say() { echo "guest-run: $*"; }
mark() { echo "guest-run: $*" >/dev/kmsg; }

mark "stage 2"

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 ACCEL_KERNEL_VM=1
# The kernel's config: what it was built without (tests skip on that).
[ -r "${KCONFIG:-}" ] && export ACCEL_KERNEL_CONFIG=$KCONFIG
# shellcheck disable=SC1091
. "$X/env.sh"

out=/dev/console
err=/dev/console
# Builtins only where it is cheap to avoid a program: every first exec
# of a host binary costs a 9p round trip or several under TCG.
for port in /sys/class/virtio-ports/*; do
	name=
	read -r name <"$port/name" 2>/dev/null || continue
	case $name in
	accel.stdout) out=/dev/${port##*/} ;;
	accel.stderr) err=/dev/${port##*/} ;;
	esac
done
[ "$out" != /dev/console ] || say "no accel.stdout port, using the console"
exec 3>"$out" 4>"$err"

mark "running commands"
if ! cd "$CWD"; then
	say "no working directory $CWD in the guest"
	echo "done" >"$X/done"
	exit 0
fi

cmds=()
while IFS= read -r line || [ -n "$line" ]; do
	[[ $line =~ ^[[:space:]]*(#|$) ]] || cmds+=("$line")
done <"$X/commands"
total=${#cmds[@]}

n=0
for line in "${cmds[@]}"; do
	n=$((n + 1))
	[ "$total" -gt 1 ] && echo "vm-run: [$n/$total] $line" >&3
	# A subshell execs a simple command directly: no extra program.
	# Stage 1's watchdog enforces the time limit.
	(eval "$line") </dev/null >&3 2>&4 3>&- 4>&-
	rc=$?
	[ "$total" -gt 1 ] && echo "vm-run: [$n/$total] exit $rc" >&3
	echo "$rc $n" >>"$X/results"
done

exec 3>&- 4>&-
echo "done" >"$X/done"
