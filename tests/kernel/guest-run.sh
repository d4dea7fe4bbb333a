#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Guest, stage 2: runs chrooted into the overlay of the host's /, with a
# clean environment, from the transfer share (/run/vm-xfer here).  Runs
# each line of "commands" in the host's working directory, its stdout and
# stderr on the virtio serial ports named accel.stdout / accel.stderr
# (vm-run.sh streams them to its own stdout and stderr), and writes
# "<exit code> <line number>" for each into "results", then "done".
# Its own messages go to the kernel console.

X=/run/vm-xfer
# shellcheck disable=SC1091
. "$X/vm.conf"

say() { echo "guest-run: $*"; }
mark() { echo "guest-run: $*" >/dev/kmsg; }

mark "stage 2"

# Read now: the overall deadline counts from QEMU's start, which is
# about when the guest's clock started.
read -r up _ </proc/uptime
up=${up%.*}
deadline=$((up + TIMEOUT - MARGIN))
[ "$deadline" -gt "$up" ] || deadline=$((up + 1))

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 ACCEL_KERNEL_VM=1
# shellcheck disable=SC1091
. "$X/env.sh"

out=/dev/console
err=/dev/console
for port in /sys/class/virtio-ports/*; do
	[ -r "$port/name" ] || continue
	case $(cat "$port/name") in
	accel.stdout) out=/dev/${port##*/} ;;
	accel.stderr) err=/dev/${port##*/} ;;
	esac
done
[ "$out" != /dev/console ] || say "no accel.stdout port, using the console"
exec 3>"$out" 4>"$err"

# Soft-RoCE on a dummy netdev, for the verbs tests; only where the host
# has the rdma tool (iproute2) to set it up.
if [ "$RDMA" = 1 ] && command -v rdma >/dev/null && command -v ip >/dev/null; then
	ip link add dummy0 type dummy && ip link set dummy0 up &&
		rdma link add rxe0 type rxe netdev dummy0 ||
		say "soft-RoCE (rxe0 on dummy0) setup failed"
fi

mark "running commands"
if ! cd "$CWD"; then
	say "no working directory $CWD in the guest"
	echo done >"$X/done"
	exit 0
fi

n=0
total=$(grep -cvE '^[[:space:]]*(#|$)' "$X/commands")
while IFS= read -r line <&5; do
	[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
	n=$((n + 1))
	[ "$total" -gt 1 ] && echo "vm-run: [$n/$total] $line" >&3
	read -r now _ </proc/uptime
	now=${now%.*}
	left=$((deadline - now))
	if [ "$left" -le 0 ]; then
		say "no time left for: $line"
		echo "124 $n" >>"$X/results"
		continue
	fi
	# bash -c execs a simple command directly, so the test is the
	# child of timeout and gets its signals.
	timeout -k 5 "$left" /bin/bash -c "$line" </dev/null >&3 2>&4
	rc=$?
	[ "$total" -gt 1 ] && echo "vm-run: [$n/$total] exit $rc" >&3
	echo "$rc $n" >>"$X/results"
done 5<"$X/commands"

exec 3>&- 4>&-
echo done >"$X/done"
