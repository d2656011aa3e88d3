#!/usr/bin/env bash
# Count the TAP results (lines at column 0) in the given logs and end with
# "N passed, N failed, N skipped". Listed above that line, each with its
# reason: every failure, every skip (ok ... # SKIP), every expected failure
# (not ok ... # TODO, or kselftest's ok ... # XFAIL) and every flake
# (ok ... # FLAKY: passed only on a rerun, or only the starved client's
# doing, with its reason). A skip, an expected failure or a
# flake is never a pass. Exits non-zero if anything failed or nothing passed.
set -eu
cat "$@" | tr -d '\r' | awk '
	function reason(s) { sub(/^(not )?ok [0-9]* *-? */, "", s); return s }
	/^not ok( |$)/ && /# *TODO/ { xfail[++nx] = reason($0); next }
	/^not ok( |$)/ { fails[++nf] = reason($0); next }
	/^ok( |$)/ && /# *[Ss][Kk][Ii][Pp]/ { skips[++ns] = reason($0); next }
	/^ok( |$)/ && /# *XFAIL/ { xfail[++nx] = reason($0); next }
	/^ok( |$)/ && /# *FLAKY/ { flakes[++nk] = reason($0); next }
	/^ok( |$)/ { passed++ }
	END {
		if (ns) print "\nSkipped (not counted as passed):"
		for (i = 1; i <= ns; i++) print "  SKIP: " skips[i]
		if (nx) print "\nExpected failures (not counted as passed):"
		for (i = 1; i <= nx; i++) print "  XFAIL: " xfail[i]
		if (nk) print "\nFlakes (not counted as passed):"
		for (i = 1; i <= nk; i++) print "  FLAKY: " flakes[i]
		if (nf) print "\nFailures:"
		for (i = 1; i <= nf; i++) print "  FAIL: " fails[i]
		if (nx || nk) printf "%d expected failures, %d flakes\n", nx, nk
		printf "%d passed, %d failed, %d skipped\n", passed, nf, ns
		exit (nf || !passed) ? 1 : 0
	}'
