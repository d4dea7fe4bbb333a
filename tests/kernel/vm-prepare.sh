#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vm-prepare.sh <cache-dir> [--refresh] [--arch amd64|arm64] [--sysroot DIR]
#
# Prepares what vm-run.sh boots: Debian's own 6.12 kernel (fetched with
# apt-get download and unpacked into the cache, never installed into /),
# an uncompressed PVH vmlinux when one can be extracted, and a small
# busybox initramfs carrying the modules the guest needs.
#
# --arch arm64 prepares an arm64 guest instead: its kernel, modules and
# busybox come from --sysroot DIR, a tree of unpacked arm64 Debian
# packages (tests/arm64/make-sysroot.sh makes it) that is also the guest's
# root.  One cache holds one architecture.
#
# Idempotent: the result is described by <cache-dir>/vm.env, and a later
# run that finds it complete does nothing.  --refresh looks for a newer
# kernel again.
#
# Exit codes: 0 ready, 77 cannot run here (reason printed), 1 error.

set -euo pipefail

# Bump when the layout of the cache or the initramfs changes, so that an
# old cache is rebuilt instead of half-used.
FORMAT=3

# Modules the guest loads at boot, in this order (dependencies are added
# by modprobe --show-depends).  crc32_generic must come before rdma_rxe:
# rxe asks the crypto API for "crc32" only when a link is added.
MODULES="9pnet_virtio 9p overlay crc32_generic vgem rdma_rxe ib_uverbs
	rdma_ucm dummy cuse"

prog=vm-prepare
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }

usage() {
	echo "usage: $0 <cache-dir> [--refresh] [--arch amd64|arm64] [--sysroot DIR]" >&2
	exit 2
}

cache=
refresh=0
arch=amd64
sysroot=
while [ $# -gt 0 ]; do
	case $1 in
	--refresh) refresh=1; shift ;;
	--arch) arch=${2:-}; shift 2 || usage ;;
	--sysroot) sysroot=${2:-}; shift 2 || usage ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) [ -z "$cache" ] || usage; cache=$1; shift ;;
	esac
done
[ -n "$cache" ] || usage
case $arch in
amd64) [ -z "$sysroot" ] || die "--sysroot goes with --arch arm64" ;;
arm64)
	[ -n "$sysroot" ] || die "--arch arm64 needs --sysroot"
	[ -d "$sysroot/boot" ] || skip "$sysroot has no boot/ (no arm64 kernel unpacked there)"
	sysroot=$(cd "$sysroot" && pwd -P)
	;;
*) usage ;;
esac

mkdir -p "$cache" || die "cannot create $cache"
cache=$(cd "$cache" && pwd -P)

# Answers "is the cache complete?" without touching anything.
cache_ready() {
	local FORMAT_FOUND='' KVER='' KERNEL='' INITRD='' MODROOT='' ARCH=''
	[ -f "$cache/vm.env" ] || return 1
	# shellcheck disable=SC1091
	. "$cache/vm.env"
	[ "$FORMAT_FOUND" = "$FORMAT" ] && [ -n "$KVER" ] &&
		[ "${ARCH:-amd64}" = "$arch" ] &&
		{ [ "$arch" = amd64 ] || [ "$MODROOT" = "$sysroot" ]; } &&
		[ -s "$KERNEL" ] && [ -s "$INITRD" ] &&
		[ -d "$MODROOT/lib/modules/$KVER" ] &&
		# (a sysroot made anew has no modules.dep until depmod runs)
		[ -s "$MODROOT/lib/modules/$KVER/modules.dep" ]
}

if [ "$refresh" = 0 ] && cache_ready; then
	exit 0
fi

# Everything below can take a minute: serialize concurrent callers (ctest
# -j) on a lock, then look again in case another caller finished the work.
exec 9>"$cache/.lock"
if command -v flock >/dev/null; then
	flock 9
fi
if [ "$refresh" = 0 ] && cache_ready; then
	exit 0
fi

# --- Tools -----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
need() {
	local tool=$1 pkg=$2
	command -v "$tool" >/dev/null ||
		skip "'$tool' not found (install the Debian package '$pkg')"
}
if [ "$arch" = arm64 ]; then
	need qemu-system-aarch64 qemu-system-arm
else
	need qemu-system-x86_64 qemu-system-x86
	need busybox busybox-static
fi
need depmod kmod
need modprobe kmod
need cpio cpio
need zstd zstd
need xz xz-utils
need apt-get apt
need apt-cache apt
need dpkg dpkg
need od coreutils

if [ "$arch" = arm64 ]; then
	busybox=$sysroot/bin/busybox
	[ -x "$busybox" ] || skip "$sysroot has no bin/busybox (busybox-static)"
else
	busybox=$(command -v busybox)
fi
# A dynamic busybox would need its libraries in the initramfs.
if command -v readelf >/dev/null &&
   readelf -l "$busybox" 2>/dev/null | grep 'INTERP' >/dev/null; then
	skip "$busybox is dynamically linked (install busybox-static)"
fi

# --- Pick and fetch the kernel ----------------------------------------------

dl="$cache/download"
if [ "$arch" = arm64 ]; then
	# Already unpacked in the sysroot: the newest 6.12 there.
	kver=$(cd "$sysroot/lib/modules" 2>/dev/null && ls -d 6.12.*-arm64 |
		sort -V | tail -n1) ||
		skip "$sysroot has no lib/modules/6.12.*-arm64 (linux-image-6.12-arm64)"
	[ -n "$kver" ] || skip "$sysroot has no lib/modules/6.12.*-arm64"
	deb=linux-image-$kver
	rm -f "$cache/vm.env"
	tree=$sysroot
else

	# Newest first.  The signed image is what Debian installs normally; the
	# -unsigned one is the same kernel and only a fallback.  Never -cloud-
	# (no DRM, no 9p) and never -dbg.  Only the newest few: older point
	# releases vanish from the mirror, and without a network each attempt
	# costs apt's timeouts.
	candidates() {
		local all
		all=$(apt-cache search --names-only '^linux-image-6\.12\.' 2>/dev/null |
			awk '{print $1}')
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' <<<"$all" |
			sort -rV | head -n 2 || true
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' <<<"$all" |
			sort -rV | head -n 1 || true
	}

	list=$(candidates)
	if [ -z "$list" ] && [ "$(id -u)" = 0 ]; then
		note "no linux-image-6.12 in the package lists, running apt-get update"
		apt-get update -qq >/dev/null 2>&1 || true
		list=$(candidates)
	fi
	[ -n "$list" ] ||
		skip "apt-cache offers no linux-image-6.12.*+deb12-amd64 (apt-get update? bookworm lists?)"

	mkdir -p "$dl"

	fetch() {
		local pkg=$1
		# The package's own file name has the Debian version in it; look for
		# one already downloaded first.
		deb=$(ls "$dl/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n1 || true)
		[ -n "$deb" ] && return 0
		note "downloading $pkg"
		(cd "$dl" && apt-get download -q "$pkg") >"$dl/apt.log" 2>&1 ||
			return 1
		deb=$(ls "$dl/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n1 || true)
		[ -n "$deb" ]
	}

	deb=
	pkg=
	updated=0
	for pkg in $list; do
		fetch "$pkg" && break
		# Older point releases vanish from the mirror: stale lists point at
		# files that are gone.  Refresh the lists once, then go on down.
		if [ "$updated" = 0 ] && [ "$(id -u)" = 0 ]; then
			updated=1
			apt-get update -qq >/dev/null 2>&1 || true
			fetch "$pkg" && break
		fi
		note "could not download $pkg: $(tail -n1 "$dl/apt.log")"
		deb=
	done
	if [ -z "$deb" ]; then
		skip "no linux-image-6.12 package could be downloaded (no network to the Debian mirror?)"
	fi

	kver=${pkg#linux-image-}
	kver=${kver%-unsigned}

	# A fresh tree each time something is (re)built: a half-unpacked one
	# from an interrupted run must not be mistaken for a good one.
	rm -f "$cache/vm.env"
	tree="$cache/root-$kver"
	rm -rf "$tree"
	note "unpacking $(basename "$deb")"
	if ! dpkg -x "$deb" "$tree"; then
		# Perhaps a download cut short: fetch it anew next time.
		rm -f "$deb"
		die "dpkg -x $deb failed"
	fi
fi

# Some packagings put modules under /usr/lib; modprobe -d wants /lib.
if [ ! -d "$tree/lib/modules/$kver" ] && [ -d "$tree/usr/lib/modules/$kver" ]; then
	mkdir -p "$tree/lib"
	ln -s ../usr/lib/modules "$tree/lib/modules"
fi
[ -d "$tree/lib/modules/$kver" ] || die "$deb has no lib/modules/$kver"
vmlinuz="$tree/boot/vmlinuz-$kver"
[ -s "$vmlinuz" ] || die "$deb has no boot/vmlinuz-$kver"

# Debian ships no modules.dep.
depmod -b "$tree" "$kver" || die "depmod -b $tree $kver failed"

# --- Uncompressed PVH vmlinux -----------------------------------------------

# Reads a little-endian unsigned integer of $3 bytes at offset $2 of $1.
le() { od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' '; }

# The bzImage header (Documentation/arch/x86/boot.rst) says where the
# compressed kernel is: payload_offset/payload_length at 0x248/0x24c,
# counted from the protected-mode code that follows the setup sectors.
# The payload is "zstd -22" output followed by the 4-byte decompressed
# size, which zstd would take for a second, broken frame.
extract_vmlinux() {
	local in=$1 out=$2 magic sects off len
	magic=$(od -An -c -j $((0x202)) -N 4 "$in" | tr -d ' ')
	[ "$magic" = "HdrS" ] || return 1
	sects=$(le "$in" $((0x1f1)) 1)
	[ "$sects" = 0 ] && sects=4
	off=$(( (sects + 1) * 512 + $(le "$in" $((0x248)) 4) ))
	len=$(le "$in" $((0x24c)) 4)
	[ "$(od -An -tx1 -j "$off" -N 4 "$in" | tr -d ' ')" = 28b52ffd ] ||
		return 1
	dd if="$in" iflag=skip_bytes,count_bytes skip="$off" \
		count=$((len - 4)) bs=1M status=none |
		zstd -qdc >"$out.tmp" || return 1
	[ "$(od -An -c -N 4 "$out.tmp" | tr -d ' ')" = '177ELF' ] || return 1
	# Without the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY = 18) QEMU
	# refuses an ELF kernel.
	command -v readelf >/dev/null || return 1
	# (grep without -q: with pipefail, readelf's SIGPIPE would count.)
	readelf -n "$out.tmp" 2>/dev/null |
		grep -E 'Xen.*(0x00000012|PHYS32_ENTRY)' >/dev/null || return 1
	mv "$out.tmp" "$out"
}

kernel="$cache/vmlinux-$kver"
rm -f "$kernel" "$kernel.tmp"
if [ "$arch" = arm64 ]; then
	# Debian's arm64 vmlinuz is the raw Image (QEMU boots it as it is);
	# a gzip'd one is unpacked once here rather than at every boot.
	if [ "$(od -An -tx1 -N 2 "$vmlinuz" | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$vmlinuz" >"$kernel" || die "gzip -d $vmlinuz failed"
	else
		kernel=$vmlinuz
	fi
elif extract_vmlinux "$vmlinuz" "$kernel"; then
	note "extracted PVH vmlinux"
else
	rm -f "$kernel.tmp"
	note "no PVH vmlinux could be extracted, booting the bzImage"
	kernel=$vmlinuz
fi

# --- Initramfs ----------------------------------------------------------------

# Drops the appended signature ("~Module signature appended~\n" after a
# 12-byte struct module_signature whose last field is the big-endian
# signature length).  Unsigned modules only taint the kernel, and not
# checking RSA signatures under TCG saves a second or two per boot.
strip_sig() {
	local f=$1 size siglen
	size=$(stat -c %s "$f")
	[ "$size" -gt 40 ] || return 0
	[ "$(tail -c 28 "$f" | head -c 27)" = '~Module signature appended~' ] ||
		return 0
	siglen=$(od -An -tu1 -j $((size - 32)) -N 4 "$f" |
		awk '{print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4}')
	truncate -s $((size - 40 - siglen)) "$f"
}

ird="$cache/initramfs.d"
rm -rf "$ird"
mkdir -p "$ird"/{bin,dev,proc,sys,mnt,xfer,modules}
cp "$busybox" "$ird/bin/busybox"

# modprobe --show-depends prints dependencies first, one
# "insmod <path> [options]" line each ("builtin <name>" for built-ins).
: >"$ird/modules/order"
for m in $MODULES; do
	deps=$(modprobe -d "$tree" -S "$kver" --show-depends "$m") ||
		die "module $m: modprobe --show-depends failed"
	while read -r verb path opts; do
		[ "$verb" = insmod ] || continue
		name=$(basename "$path")
		name=${name%.xz}
		name=${name%.zst}
		name=${name%.gz}
		awk -v n="$name" '$1 == n { f = 1 } END { exit !f }' \
			"$ird/modules/order" && continue
		case $path in
		*.xz) xz -dc "$path" >"$ird/modules/$name" ;;
		*.zst) zstd -qdc "$path" >"$ird/modules/$name" ;;
		*.gz) gzip -dc "$path" >"$ird/modules/$name" ;;
		*) cp "$path" "$ird/modules/$name" ;;
		esac
		strip_sig "$ird/modules/$name"
		echo "$name $opts" >>"$ird/modules/order"
	done <<<"$deps"
done

# The first stage of the guest: only enough to reach the transfer share.
# What to do there comes from vm-run.sh through the share (guest-init.sh),
# so changing it needs no new initramfs.  Whatever happens, /init ends
# in poweroff: the kernel panics if init exits.
cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r mod opts; do
	insmod "/modules/$mod" $opts || echo "init: insmod $mod failed" >&2
done </modules/order
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xfer /xfer &&
   [ -f /xfer/guest-init.sh ]; then
	sh /xfer/guest-init.sh
else
	echo "init: no transfer share, nothing to do" >&2
fi
sync
poweroff -f
# Not reached; never let init exit.
while :; do sleep 1000; done
EOF
chmod 755 "$ird/init"

initrd="$cache/initramfs-$kver.cpio"
# Uncompressed: under TCG the kernel unpacks a plain cpio faster than it
# inflates a gzip one, and the file stays small (busybox + modules).
(cd "$ird" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) >"$initrd.tmp" ||
	die "cpio failed"
mv "$initrd.tmp" "$initrd"
rm -rf "$ird"

cat >"$cache/vm.env.tmp" <<EOF
# Written by vm-prepare.sh; read by vm-run.sh.
FORMAT_FOUND=$FORMAT
ARCH=$arch
ROOTFS=$([ "$arch" = arm64 ] && echo "$sysroot" || echo /)
KVER=$kver
KPKG=$(basename "$deb")
KERNEL=$kernel
INITRD=$initrd
MODROOT=$tree
EOF
mv "$cache/vm.env.tmp" "$cache/vm.env"

# Old kernels left behind by --refresh.
for old in "$cache"/root-* "$cache"/vmlinux-* "$cache"/initramfs-*; do
	[ "$old" != "$kernel" ] || continue
	case $old in
	*"$kver"*) ;;
	*) [ -e "$old" ] && rm -rf "$old" ;;
	esac
done
# The unpacked tree is all that is used from now on (100 MB saved); a
# rebuild downloads again, in seconds.
rm -rf "$dl"

note "ready: $kver ($(basename "$kernel"), $(du -h "$initrd" | cut -f1) initramfs)"
exit 0
