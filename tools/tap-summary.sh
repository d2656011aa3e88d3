#!/usr/bin/env bash
# tap-summary.sh [--skips LIST --where TIER/KCONFIG/KVER] LOG...
# Count the TAP results (lines at column 0) in the given logs and end with
# "N passed, N failed, N skipped". Listed above that line, each with its
# reason: every failure, every skip (ok ... # SKIP) and every expected
# failure (not ok ... # TODO, or kselftest's ok ... # XFAIL). A skip or an
# expected failure is never a pass.
#
# With --skips, a skip or an expected failure is green only where LIST
# (tests/skips.txt) has a line for it: WHERE, a tab, an extended regular
# expression matched against the result's text (after "ok N - "), a tab,
# why it is allowed. WHERE is a glob of TIER/KCONFIG/KVER ("quick/*/*",
# "*/default/*", "*/*/7.2") matched against --where. Any other skip or
# expected failure is a failure ("unlisted skip: ..."): a new SKIP line
# turns the verdict red until someone lists it with its reason.
# Exits non-zero if anything failed or nothing passed.
set -eu
skips=/dev/null where=
while [ $# -gt 0 ]; do
	case "$1" in
	--skips) skips=$2; shift 2 ;;
	--where) where=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ -r "$skips" ] || { echo "tap-summary.sh: cannot read $skips" >&2; exit 2; }
[ "$skips" = /dev/null ] || [ -n "$where" ] || { echo "tap-summary.sh: --skips wants --where TIER/KCONFIG/KVER" >&2; exit 2; }
{ cat "$skips"; echo "@@end-of-list@@"; cat "$@" | tr -d '\r'; } | awk -v where="$where" -v listing="$([ "$skips" = /dev/null ] || echo 1)" '
	function reason(s) { sub(/^(not )?ok [0-9]* *-? */, "", s); return s }
	# the line of the list that allows TEXT here, 0 for none
	function allowed(text,    i) {
		for (i = 1; i <= nl; i++)
			if (where ~ lw[i] && text ~ lre[i])
				return i
		return 0
	}
	# a skip or an expected failure: counted as KIND if listed, else failed
	function judge(kind, text,    i) {
		if (!listing) {
			if (kind == "skip") skips[++ns] = text; else xfail[++nx] = text
			return
		}
		i = allowed(text)
		if (!i)
			fails[++nf] = "unlisted " (kind == "skip" ? "skip" : "expected failure") \
				" (not in tests/skips.txt for " where "): " text
		else {
			used[i] = 1
			if (kind == "skip")
				skips[++ns] = text " [skips.txt:" lno[i] "]"
			else
				xfail[++nx] = text " [skips.txt:" lno[i] "]"
		}
	}
	!body && $0 == "@@end-of-list@@" { body = 1; next }
	!body {
		if ($0 ~ /^#/ || $0 == "")
			next
		if (split($0, f, "\t") != 3 || f[1] == "" || f[2] == "" || f[3] == "") {
			printf "tap-summary.sh: line %d of the skip list is not WHERE<TAB>ERE<TAB>WHY: %s\n", NR, $0 > "/dev/stderr"
			bad = 1
			exit 2
		}
		g = f[1]
		gsub(/[.+?(){}|^$\\[\]]/, "\\\\&", g)
		gsub(/\*/, "[^/]*", g)
		nl++; lw[nl] = "^" g "$"; lre[nl] = f[2]; lwhy[nl] = f[3]; lno[nl] = NR
		next
	}
	# a directive is the first comment of its line
	/^not ok( [^#]*)?# *TODO/ { judge("xfail", reason($0)); next }
	/^not ok( |$)/ { fails[++nf] = reason($0); next }
	/^ok( [^#]*)?# *[Ss][Kk][Ii][Pp]/ { judge("skip", reason($0)); next }
	/^ok( [^#]*)?# *XFAIL/ { judge("xfail", reason($0)); next }
	/^ok( |$)/ { passed++ }
	END {
		if (bad)
			exit 2
		if (ns) print "\nSkipped (not counted as passed):"
		for (i = 1; i <= ns; i++) print "  SKIP: " skips[i]
		if (nx) print "\nExpected failures (not counted as passed):"
		for (i = 1; i <= nx; i++) print "  XFAIL: " xfail[i]
		for (i = 1; i <= nl; i++)
			if (used[i])
				nu++
		if (nu) print "\nAllowed by tests/skips.txt, each line for:"
		for (i = 1; i <= nl; i++)
			if (used[i])
				print "  skips.txt:" lno[i] ": " lwhy[i]
		if (nf) print "\nFailures:"
		for (i = 1; i <= nf; i++) print "  FAIL: " fails[i]
		if (nx) printf "%d expected failures\n", nx
		printf "%d passed, %d failed, %d skipped\n", passed, nf, ns
		exit (nf || !passed) ? 1 : 0
	}'
