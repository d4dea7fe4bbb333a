#!/bin/bash
# SPDX-License-Identifier: MIT
#
# check-debian-package.sh SOURCE_DIR WORK_DIR
#
# Builds the Debian packages (debian/) from a copy of SOURCE_DIR in
# WORK_DIR (never in the source tree: dpkg-buildpackage writes debian/tmp,
# obj-*/ and the .debs next to the tree), with
# DEB_BUILD_OPTIONS="parallel=2 nocheck", then:
#   1. lintian on the .changes: fails on an error (warnings are printed;
#      the ones that stay are overridden and explained in debian/);
#   2. the packages extracted with dpkg-deb -x into WORK_DIR/stage and run
#      from there: accel-info -L lists the CPU reference device, its
#      --json names the staged compiler module, accelc compiles a kernel
#      (through the staged accelc-codegen), clinfo -l lists the platform
#      through the staged vendor file (which names the ICD by SONAME,
#      found through LD_LIBRARY_PATH), man -l formats the staged pages,
#      /usr/bin/python3 imports the staged libaccel module (PYTHONPATH),
#      makes a context and lists the CPU device;
#   3. with ACCEL_TEST_INSTALL_PACKAGES=1, as root, on a machine where no
#      libaccel package and no file of theirs is installed: apt-get install
#      of the .debs, `man accel-info`, clinfo -l, accel-info -L, accelc
#      and `python3 -c 'import libaccel'` as installed, then apt-get purge
#      (also on failure).
# Exit 77 (skipped), saying why, when a tool or build dependency is missing.
# WORK_DIR keeps the logs, the .debs and the lintian output; the build
# tree is removed after a successful build.
set -uo pipefail

src=${1:?usage: check-debian-package.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: check-debian-package.sh SOURCE_DIR WORK_DIR}
src=$(cd "$src" && pwd) || exit 1

skip() {
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}

for tool in dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb \
	dpkg-parsechangelog dpkg-architecture dh lintian clinfo man \
	/usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "$tool not found (apt-get install debhelper lintian" \
			"clinfo man-db: tools/debian-packages.txt)"
done
[ -f "$src/debian/control" ] || fail "no debian/ in $src"
unmet=$(cd "$src" && dpkg-checkbuilddeps -B 2>&1) ||
	skip "build dependencies missing: ${unmet#*: }"

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version) ||
	fail "cannot read debian/changelog"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# ---- a copy of the tree --------------------------------------------------------
#
# The files git knows or would add (tracked, and untracked unless ignored:
# no build directories), as they are in the working tree; without git,
# everything but build directories.

rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"
copy=$work/libaccel-$version
mkdir "$copy" || exit 1
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
	(cd "$src" &&
		git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -x -C "$copy" ||
		fail "copying the git files of $src"
else
	tar -C "$src" --exclude='./build*' --exclude='./obj-*' \
		--exclude=./.git -cf - . | tar -x -C "$copy" ||
		fail "copying $src"
fi

# ---- build -----------------------------------------------------------------------

echo "dpkg-buildpackage -us -uc -b in $copy (log: $work/build.log)"
start=$SECONDS
(cd "$copy" && DEB_BUILD_OPTIONS="parallel=2 nocheck" \
	dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1
rc=$?
echo "dpkg-buildpackage: exit $rc after $((SECONDS - start)) s"
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$work/build.log"
	fail "dpkg-buildpackage failed (log: $work/build.log)"
fi
grep -E '^dpkg-gensymbols: warning' -A20 "$work/build.log" || true
rm -rf "$copy"

changes=$(find "$work" -maxdepth 1 -name "libaccel_${version}_*.changes" |
	head -n1)
[ -n "$changes" ] || fail "no .changes in $work"
# the packages (their -dbgsym companions are only checked by lintian)
mapfile -t debs < <(find "$work" -maxdepth 1 -name '*.deb' \
	! -name '*-dbgsym_*' | sort)
echo "built: ${debs[*]##*/}"
[ "${#debs[@]}" -eq 7 ] || fail "expected 7 packages, got ${#debs[@]}"

# ---- lintian -----------------------------------------------------------------------

lintian --fail-on error --display-level '>=warning' "$changes" \
	>"$work/lintian.log" 2>&1
rc=$?
cat "$work/lintian.log"
echo "lintian: exit $rc; $(grep -c '^E: ' "$work/lintian.log") errors," \
	"$(grep -c '^W: ' "$work/lintian.log") warnings"
[ "$rc" -eq 0 ] || fail "lintian reports errors"

# ---- the packages, extracted -------------------------------------------------------

stage=$work/stage
mkdir -p "$stage"
for deb in "${debs[@]}"; do
	dpkg-deb -x "$deb" "$stage" || fail "dpkg-deb -x $deb"
done
libdir=$stage/usr/lib/$multiarch
kernel=$work/add.cl
cat >"$kernel" <<'EOF'
__kernel void add(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);

	b[i] += a[i];
}
EOF
export ACCEL_CACHE=0

# check_tools WHERE: accel-info -L, its --json, accelc and clinfo -l as
# found on $PATH (with the environment the caller set).
check_tools() {
	local where=$1 out want
	out=$(accel-info -L) || fail "$where: accel-info -L failed: $out"
	echo "$out"
	grep -q '^Device [0-9]*: .*(cpu, builtin) usable' <<<"$out" ||
		fail "$where: accel-info -L lists no CPU device"
	# the same file, by whichever path (merged /usr: ld.so may have
	# found libaccel in /lib/<triplet>)
	want=$2/libaccel-0/accel-compiler.so
	out=$(accel-info --json) || fail "$where: accel-info --json failed"
	out=$(sed -n 's/^ *"compiler": "\(\/[^"]*\)",*$/\1/p' <<<"$out" |
		head -n1)
	[ "$out" -ef "$want" ] ||
		fail "$where: the CPU device's compiler is not $want: '$out'"
	echo "$where: the CPU device's compiler: $out"
	out=$(accelc -l "$kernel" 2>&1) ||
		fail "$where: accelc -l failed: $out"
	grep -q '^kernel add ' <<<"$out" ||
		fail "$where: accelc lists no kernel add: $out"
	out=$(clinfo -l 2>&1) || fail "$where: clinfo -l failed: $out"
	echo "$out"
	grep -q '^Platform #[0-9]*: libaccel$' <<<"$out" ||
		fail "$where: clinfo -l lists no libaccel platform"
	echo "$where: accel-info, accelc, clinfo: PASS"
}

# check_python WHERE: Debian's python3 imports libaccel (from the
# environment's PYTHONPATH, or installed), which makes a context whose
# devices include the CPU reference device; the module must be the
# package's, in WHERE's dist-packages.
check_python() {
	local where=$1 out
	out=$(/usr/bin/python3 -c '
import libaccel
ctx = libaccel.Context()
print(libaccel.__file__)
for d in ctx.devices:
    print("device:", d.name, d.type == libaccel.DEVICE_TYPE_CPU)
print("cpu:", ctx.cpu_device.name)
' 2>&1) || fail "$where: python3 -c 'import libaccel ...' failed: $out"
	echo "$out"
	grep -q "^$2/libaccel/__init__.py$" <<<"$out" ||
		fail "$where: python3 imported libaccel not from $2"
	grep -q '^device: .* True$' <<<"$out" ||
		fail "$where: libaccel.Context() lists no CPU device"
	echo "$where: python3 import libaccel: PASS"
}

icd=$(cat "$stage/etc/OpenCL/vendors/libaccel.icd")
soname=$(objdump -p "$libdir/libaccel-icd.so.0" |
	awk '$1 == "SONAME" { print $2 }')
[ "$icd" = "$soname" ] ||
	fail "libaccel.icd names '$icd', not the ICD's SONAME '$soname'"

(
	export PATH=$stage/usr/bin:$PATH
	export LD_LIBRARY_PATH=$libdir
	export OCL_ICD_VENDORS=$stage/etc/OpenCL/vendors
	check_tools staged "$libdir"
	PYTHONPATH=$stage/usr/lib/python3/dist-packages \
		check_python staged "$stage/usr/lib/python3/dist-packages"
) || exit 1

for page in man1/accel-info.1 man1/accelc.1 man7/libaccel.7; do
	name=${page##*/}
	out=$(MANWIDTH=80 man -P cat -l "$stage/usr/share/man/$page.gz" \
		2>&1) || fail "man -l $page: $out"
	grep -q "^NAME" <<<"$out" || fail "man -l $page: no NAME section"
	echo "man -l $name: $(grep -A1 '^NAME' <<<"$out" | tail -n1 |
		sed 's/^ *//')"
done

# ---- the packages, installed -------------------------------------------------------

if [ "${ACCEL_TEST_INSTALL_PACKAGES:-0}" != 1 ]; then
	echo "not installed (ACCEL_TEST_INSTALL_PACKAGES=1 as root does)"
	echo PASS
	exit 0
fi
[ "$(id -u)" -eq 0 ] || fail "ACCEL_TEST_INSTALL_PACKAGES=1 needs root"

mapfile -t pkgs < <(for deb in "${debs[@]}"; do
	dpkg-deb -f "$deb" Package
done)
# Not on a machine that has them already, from a package or from
# `cmake --install`: the purge would take that install with it. (Built,
# checked and run staged all the same: a pass, saying so.)
not_installed() {
	echo "NOT INSTALLED: $*"
	echo PASS
	exit 0
}
for pkg in "${pkgs[@]}"; do
	if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		grep -q ' installed$'; then
		not_installed "$pkg is installed already"
	fi
done
for deb in "${debs[@]}"; do
	while read -r f; do
		f=${f#.}
		[ -f "$f" ] || [ -L "$f" ] || continue
		not_installed "$f exists (a libaccel install?)"
	done < <(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$')
done
# Only the packages themselves: their dependencies must be installed
# already (tools/debian-packages.txt), so nothing is fetched or left.
extra=$(apt-get install -s --no-install-recommends "${debs[@]}" 2>&1 | awk '$1 == "Inst" { print $2 }' |
	grep -vxF -f <(printf '%s\n' "${pkgs[@]}"))
[ -z "$extra" ] ||
	fail "installing them needs packages not installed:" "$extra"

purge() {
	echo "apt-get purge ${pkgs[*]}"
	apt-get purge -y -q "${pkgs[@]}" >"$work/purge.log" 2>&1 ||
		echo "apt-get purge failed (log: $work/purge.log)"
}
trap purge EXIT
apt-get install -y -q --no-install-recommends "${debs[@]}" \
	>"$work/install.log" 2>&1 || {
	tail -n 30 "$work/install.log"
	fail "apt-get install failed (log: $work/install.log)"
}
echo "installed: ${pkgs[*]}"

(
	unset LD_LIBRARY_PATH OCL_ICD_VENDORS ACCEL_COMPILER
	hash -r
	check_tools installed "/usr/lib/$multiarch"
	(unset PYTHONPATH && cd / &&
		check_python installed /usr/lib/python3/dist-packages) || exit 1
	[ "$(command -v accel-info)" = /usr/bin/accel-info ] ||
		fail "accel-info is $(command -v accel-info), not /usr/bin's"
	[ -f /usr/share/man/man1/accel-info.1.gz ] ||
		fail "installed: no /usr/share/man/man1/accel-info.1.gz" \
			"(a dpkg path-exclude in /etc/dpkg/dpkg.cfg.d?)"
	out=$(MANWIDTH=80 man -P cat accel-info 2>&1) ||
		fail "man accel-info: $out"
	grep -q '^NAME' <<<"$out" && grep -q 'accel-info' <<<"$out" ||
		fail "man accel-info: not the page: $out"
	echo "man accel-info: $(grep -A1 '^NAME' <<<"$out" | tail -n1 |
		sed 's/^ *//')"
	# libaccel-dev: a program built with pkg-config runs
	printf '%s\n' '#include <stdio.h>' '#include <libaccel/libaccel.h>' \
		'int main(void)' '{' \
		'	printf("%s\n", accel_get_version());' \
		'	return 0;' '}' >"$work/version.c"
	# shellcheck disable=SC2046  # pkg-config's words
	cc -o "$work/version" "$work/version.c" \
		$(pkg-config --cflags --libs libaccel) ||
		fail "installed: cannot build with pkg-config libaccel"
	out=$("$work/version") || fail "installed: the program fails"
	echo "installed: pkg-config libaccel: a program runs: $out"
) || exit 1

trap - EXIT
purge
for f in /etc/OpenCL/vendors/libaccel.icd /usr/bin/accel-info \
	"/usr/lib/$multiarch/libaccel.so.0" \
	/usr/lib/python3/dist-packages/libaccel; do
	[ ! -e "$f" ] || fail "$f is left after apt-get purge"
done
echo PASS
