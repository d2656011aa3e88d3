#!/usr/bin/env bash
# Count the TAP results (lines at column 0) in the given logs and end with
# "N passed, N failed, N skipped". Listed above that line, each with its
# reason: every failure, every skip (ok ... # SKIP) and every expected
# failure (not ok ... # TODO, or kselftest's ok ... # XFAIL). A skip or an
# expected failure is never a pass. Exits non-zero if anything failed or
# nothing passed.
set -eu
cat "$@" | tr -d '\r' | awk '
	function reason(s) { sub(/^(not )?ok [0-9]* *-? */, "", s); return s }
	# a directive is the first comment of its line
	/^not ok( [^#]*)?# *TODO/ { xfail[++nx] = reason($0); next }
	/^not ok( |$)/ { fails[++nf] = reason($0); next }
	/^ok( [^#]*)?# *[Ss][Kk][Ii][Pp]/ { skips[++ns] = reason($0); next }
	/^ok( [^#]*)?# *XFAIL/ { xfail[++nx] = reason($0); next }
	/^ok( |$)/ { passed++ }
	END {
		if (ns) print "\nSkipped (not counted as passed):"
		for (i = 1; i <= ns; i++) print "  SKIP: " skips[i]
		if (nx) print "\nExpected failures (not counted as passed):"
		for (i = 1; i <= nx; i++) print "  XFAIL: " xfail[i]
		if (nf) print "\nFailures:"
		for (i = 1; i <= nf; i++) print "  FAIL: " fails[i]
		if (nx) printf "%d expected failures\n", nx
		printf "%d passed, %d failed, %d skipped\n", passed, nf, ns
		exit (nf || !passed) ? 1 : 0
	}'
