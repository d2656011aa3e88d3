#!/usr/bin/env bash
# Count TAP results (lines at column 0) in the given logs, print one line per
# failure with its reason, end with "N passed, N failed", fail if any failed.
set -eu
cat "$@" | tr -d '\r' | awk '
	/^not ok/ { failed++; sub(/^not ok [0-9]* *-? */, ""); fails[failed] = $0; next }
	/^ok/ { passed++ }
	END {
		if (failed) print "\nFailures:"
		for (i = 1; i <= failed; i++) print "  FAIL: " fails[i]
		printf "%d passed, %d failed\n", passed, failed
		exit (failed || !passed) ? 1 : 0
	}'
