#!/usr/bin/env bash
# check-patch-warnings.sh KDIR PRISTINE PATCH [PATCHED]: every C file PATCH
# touches, compiled as the kernel compiles it (the command kbuild recorded
# in KDIR's .FILE.o.cmd; KDIR is the build folder, the tree's own or an O=
# one), once as the build has it (the series applied; or as the tree
# PATCHED has it) and once as PRISTINE has it, in KDIR's build context. With GCC, plus
# -Wmaybe-uninitialized (W=2's; kbuild passes -Wno-maybe-uninitialized
# below it); with clang, its own warnings (-Wsometimes-uninitialized is on
# in every clang build: what the 0-day robot reports).
# Prints each warning the patched file has and the pristine one does not
# (by text, line numbers aside), one a line; exit 0 for none, 1 for some,
# 2 when a file could not be checked (no recorded command: not built in
# this config; or a compiler error). Patch 3 of 2026-12-05 read an
# uninitialised index on the path it added: "'i' may be used
# uninitialized" in drivers/base/platform.c, which nothing else reported.
set -eu
[ $# = 3 ] || [ $# = 4 ] || { echo "usage: check-patch-warnings.sh KDIR PRISTINE PATCH [PATCHED]" >&2; exit 2; }
kdir=$1 pristine=$2 patch=$3 patched=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
# warnings FILE.c OUT: the compile's warnings, positions dropped, sorted;
# FILE.c empty: the file the build compiled
warnings() {
	local src=$1 out=$2 cmd
	# (savedcmd_ since 6.5), the compile alone (objtool runs after a ';')
	cmd=$(sed -n -E "s#^(saved)?cmd_${obj} := ##p" "$kdir/$(dirname "$f")/.$(basename "$obj").cmd")
	cmd=${cmd%%;*}
	cmd=$(printf '%s\n' "$cmd" | sed -E 's/ +$//')
	# its last word is the file: relative to KDIR, or under an O= build's
	# source tree
	case " $cmd" in *[/\ ]"$f") ;; *) echo "cannot find the compile of $f in its .cmd"; return 2 ;; esac
	# no dependency file, no object in the tree: the source given, a
	# temporary object; with GCC the warning W=2 adds
	cmd=$(printf '%s\n' "$cmd" | sed -E "s# -Wp,-MMD,[^ ]+##; s# -o $obj # -o $tmp/x.o #; s# -Wno-maybe-uninitialized##g")
	[ -z "$src" ] || cmd="${cmd% *} $src"
	# the compiler is what comes before the first option (ccache clang-19)
	case " ${cmd%% -*} " in *clang*) ;; *) cmd="$cmd -Wmaybe-uninitialized" ;; esac
	if ! (cd "$kdir" && eval "$cmd") > "$tmp/log" 2>&1; then
		echo "cannot compile $f ($src): $(grep -m1 'error' "$tmp/log")"
		return 2
	fi
	sed -n -E 's/^[^ :]+:[0-9]+:[0-9]+: (warning: .*)$/\1/p' "$tmp/log" | sort > "$out"
}
for f in $(sed -n 's#^diff --git a/\([^ ]*\.c\) b/.*#\1#p' "$patch" | sort -u); do
	obj=${f%.c}.o
	if [ ! -f "$kdir/$(dirname "$f")/.$(basename "$obj").cmd" ]; then
		echo "$f: not built in $kdir (no .$(basename "$obj").cmd)"
		rc=2
		continue
	fi
	warnings "${patched:+$patched/$f}" "$tmp/new" || { rc=2; continue; }
	if [ -f "$pristine/$f" ]; then
		warnings "$pristine/$f" "$tmp/old" || { rc=2; continue; }
	else
		: > "$tmp/old"	# a file the patch adds
	fi
	# what the patched file has beyond the pristine one
	added=$(comm -13 "$tmp/old" "$tmp/new")
	if [ -n "$added" ]; then
		printf '%s\n' "$added" | sed "s#^#$f: #"
		[ "$rc" = 2 ] || rc=1
	fi
done
exit "$rc"
