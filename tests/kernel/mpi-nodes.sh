#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Two "nodes" inside the kernel-tier VM, for MPI and UCX across a network.
# It rewrites the network set-up of the machine it runs on, so it refuses
# to run outside the VM (ACCEL_KERNEL_VM=1, set by guest-run.sh).
#
#   mpi-nodes.sh up                      make node1 and node2
#   mpi-nodes.sh run NODE CMD...         run CMD on NODE
#   mpi-nodes.sh mpirun TRANSPORT ARGS...
#                                        mpirun on node1 over both nodes
#                                        (ARGS: -np N, the program ...)
#   mpi-nodes.sh pair TRANSPORT CMD...   CMD --listen PORT on node2, then
#                                        CMD --connect node2:PORT on node1;
#                                        the worse exit code of the two
#   mpi-nodes.sh rsh NODE WORDS...       Open MPI's launcher agent: runs
#                                        the command line WORDS on NODE, as
#                                        ssh would
#
# TRANSPORT picks what UCX may use between the nodes:
#   rc   RC verbs on soft-RoCE (with UD verbs for connection set-up)
#   ud   UD verbs on soft-RoCE
#   tcp  TCP sockets over the nodes' veth pair
# Shared memory is never among them: both nodes share one kernel, one
# /dev/shm and one boot id, so UCX would carry traffic between them
# through memory and the network would see none.
#
# A node is a network namespace named after it, entered with a UTS
# namespace of its own so that gethostname() tells the nodes apart (Open
# MPI groups ranks into nodes by host name).
#
# TCP: a veth pair between the namespaces, "veth0" with 10.78.0.N/24 on
# node N; /etc/hosts (the guest's throw-away copy) names the addresses.
#
# RDMA: soft-RoCE device rxeN for node N. Linux 6.12's rxe cannot live in
# a namespace: it opens its UDP socket (port 4791) and routes its packets
# in the initial namespace only, so on a netdev inside a namespace it
# sends nothing and receives nothing; and `rdma dev set rxeN netns` fails
# with EOPNOTSUPP (rxe cannot disassociate user contexts). So rxeN sits
# on "rxnetN" in the initial namespace, the ends of a second veth pair
# (10.79.0.N/24). Both addresses being local there, the kernel would hand
# rxnet1's packets for 10.79.0.2 to the loopback device, where rxe drops
# them; policy routing sends them over the veth instead: a rule per
# rxnetN ("oif rxnetN") comes before the local table and routes the
# peer's address over the veth, the peers' MACs are static neighbours,
# and accept_local lets packets whose source address is local in. The
# RDMA subsystem's default "shared" netns mode shows both devices to both
# namespaces; each node's environment names its own (UCX_NET_DEVICES).
# rxe0 (on dummy0, made by guest-init.sh) is removed first.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
NODES="node1 node2"
TCP_NET=10.78.0
RXE_NET=10.79.0
PORT=17777

die() { echo "mpi-nodes: $*" >&2; exit 1; }
skip() { echo "mpi-nodes: SKIP: $*" >&2; exit 77; }

[ "${ACCEL_KERNEL_VM:-}" = 1 ] ||
	skip "only in the kernel-tier VM (it rewrites the network set-up)"

node_index() {
	case $1 in
	node1) echo 1 ;;
	node2) echo 2 ;;
	*) die "unknown node '$1'" ;;
	esac
}

up() {
	local n i peer mac

	command -v rdma >/dev/null || skip "no rdma tool (iproute2)"
	command -v mpirun >/dev/null || skip "no mpirun (openmpi-bin)"
	modprobe veth || die "no veth module"
	rdma link delete rxe0 2>/dev/null || true

	for n in $NODES; do
		ip netns add "$n"
		ip -n "$n" link set lo up
		echo "$TCP_NET.$(node_index "$n") $n" >>/etc/hosts
	done
	ip link add veth0 netns node1 type veth peer name veth0 netns node2
	for n in $NODES; do
		i=$(node_index "$n")
		ip -n "$n" addr add "$TCP_NET.$i/24" dev veth0
		ip -n "$n" link set veth0 up
	done

	ip link add rxnet1 type veth peer name rxnet2
	sysctl -qw net.ipv4.conf.all.rp_filter=0
	for i in 1 2; do
		sysctl -qw "net.ipv4.conf.rxnet$i.accept_local=1"
		sysctl -qw "net.ipv4.conf.rxnet$i.rp_filter=0"
		ip addr add "$RXE_NET.$i/24" dev "rxnet$i"
		ip link set "rxnet$i" up
	done
	ip rule add pref 1000 lookup local
	ip rule del pref 0
	for i in 1 2; do
		peer=$((3 - i))
		mac=$(cat "/sys/class/net/rxnet$peer/address")
		ip rule add pref 100 oif "rxnet$i" lookup $((100 + i))
		ip route add "$RXE_NET.$peer" dev "rxnet$i" table $((100 + i))
		ip neigh replace "$RXE_NET.$peer" lladdr "$mac" \
			dev "rxnet$i" nud permanent
		rdma link add "rxe$i" type rxe netdev "rxnet$i"
	done
	echo "mpi-nodes: node1, node2: TCP over veth0 ($TCP_NET.0/24)," \
		"soft-RoCE rxe1, rxe2 ($RXE_NET.0/24)"
}

# The node's UCX settings for $MPI_NODES_TRANSPORT, then CMD in the node.
run() {
	local node=$1 i
	shift
	i=$(node_index "$node")
	ip netns pids "$node" >/dev/null 2>&1 ||
		skip "no node $node (mpi-nodes.sh up first)"
	local -a env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
	case ${MPI_NODES_TRANSPORT:-rc} in
	rc | ud)
		# rxe's UD receive completions fail UCX 1.13's check of the
		# destination GID (the packets arrive, UCX drops them), so
		# UD-based transports time out unless the check is off.
		env+=(UCX_TLS="self,${MPI_NODES_TRANSPORT:-rc}_v"
		      UCX_NET_DEVICES="rxe$i:1"
		      UCX_UD_VERBS_ETH_DGID_CHECK=n) ;;
	tcp)
		env+=(UCX_TLS=self,tcp UCX_NET_DEVICES=veth0) ;;
	*) die "unknown transport '$MPI_NODES_TRANSPORT'" ;;
	esac
	exec ip netns exec "$node" unshare --uts env "${env[@]}" \
		/bin/sh -c 'hostname "$0" && exec "$@"' "$node" "$@"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up)
	up
	;;
run)
	[ $# -ge 2 ] || die "usage: $0 run NODE CMD..."
	run "$@"
	;;
rsh)
	# As ssh does: the words after the host are one shell command line.
	[ $# -ge 2 ] || die "usage: $0 rsh NODE WORDS..."
	node=$1
	shift
	run "$node" /bin/sh -c "$*"
	;;
mpirun)
	[ $# -ge 2 ] || die "usage: $0 mpirun TRANSPORT ARGS..."
	export MPI_NODES_TRANSPORT=$1
	shift
	# In sanitizer builds: Open MPI unloads its components in
	# MPI_Finalize(), and LeakSanitizer then reports their allocations
	# with no stack to tell them from the program's. Leak detection is off
	# for MPI ranks; ASan and UBSan errors still end them.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	hostfile=$(mktemp)
	trap 'rm -f "$hostfile"' EXIT
	for n in $NODES; do
		echo "$n slots=4"
	done >"$hostfile"
	echo "mpi-nodes: mpirun over $NODES, transport $MPI_NODES_TRANSPORT"
	# pml ucx on any device (by default it only takes Mellanox ones);
	# the agent starts node2's daemon (through bash: a checkout that
	# lost the exec bits still works); bootstrap traffic on veth0.
	rc=0
	(run node1 mpirun --hostfile "$hostfile" --map-by node \
		--mca plm_rsh_agent "bash $here/mpi-nodes.sh rsh" \
		--mca oob_tcp_if_include "$TCP_NET.0/24" \
		--mca pml ucx --mca pml_ucx_tls any \
		--mca pml_ucx_devices any --mca btl ^openib,ofi \
		"$@") || rc=$?
	exit $rc
	;;
pair)
	[ $# -ge 2 ] || die "usage: $0 pair TRANSPORT CMD..."
	export MPI_NODES_TRANSPORT=$1
	shift
	echo "mpi-nodes: $1 from node1 to node2, transport $MPI_NODES_TRANSPORT"
	(run node2 "$@" --listen "$PORT") &
	server=$!
	rc_c=0 rc_s=0
	(run node1 "$@" --connect "node2:$PORT") || rc_c=$?
	wait "$server" || rc_s=$?
	for rc in $rc_c $rc_s; do
		[ "$rc" = 0 ] || [ "$rc" = 77 ] || exit "$rc"
	done
	if [ "$rc_c" = 77 ] || [ "$rc_s" = 77 ]; then
		exit 77
	fi
	exit 0
	;;
*)
	die "usage: $0 up | run NODE CMD... | mpirun TRANSPORT ARGS... |" \
		"pair TRANSPORT CMD... | rsh NODE WORDS..."
	;;
esac
