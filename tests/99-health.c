// SPDX-License-Identifier: GPL-2.0
/*
 * 99-health: after the stress tests, the vivpoll devices are healthy.
 *
 * Run last by guest/check.sh: every engine is stopped, the legacy poll
 * switch is back at 0, the kernel log is clean, and every vivpoll device
 * captures 5 frames by mmap, which its counter controls must account for:
 * one engine start, at least the 5 frames dequeued and at most as many more
 * as there were buffers. The devices are those bound to the driver in
 * sysfs: each must have a video node that the V4L2 API finds (there must
 * be at least one), so a node the tests cannot find fails, not passes.
 *
 * Every check prints one TAP line at column 0; the exit status is non-zero
 * if any check failed.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "lib.h"

/* The platform devices bound to the vivpoll driver, names in buf. */
static int bound_pdevs(char *buf, size_t len)
{
	DIR *d = opendir(VT_DRV_DIR);
	struct dirent *e;
	int n = 0;

	buf[0] = 0;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "vivpoll.", 8))
			continue;
		vt_appendf(buf, len, "%s%s", n ? " " : "", e->d_name);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	struct vt_dev devs[VT_MAX_DEVS];
	struct vt_snap snap;
	char buf[256], nd[16];
	int n, nb, v = -1, i, want;

	vt_begin("99-health: vivpoll is healthy after the stress tests");
	/*
	 * The plan is what the module was asked for (n_devs, 1 if it cannot
	 * be read), not what was found: a device without its video node
	 * leaves its results "not ok", not out.
	 */
	if (vt_read_file("/sys/module/vivpoll/parameters/n_devs", nd,
			 sizeof(nd)) <= 0 || sscanf(nd, "%d", &want) != 1 ||
	    want < 1 || want > VT_MAX_DEVS)
		want = 1;
	vt_plan(8 + 2 * want);
	n = vt_devices(devs, VT_MAX_DEVS);
	nb = bound_pdevs(buf, sizeof(buf));
	vt_diag("n_devs=%d: %d vivpoll device(s) found by their video nodes, "
		"%d bound: %s", want, n, nb, buf);
	vt_ok(n == want && n == nb, "every vivpoll device bound to the driver "
	      "has a video node the tests find", "n_devs=%d, %d bound (%s), %d "
	      "found by their video nodes", want, nb, buf, n);
	if (n > want)
		n = want;
	for (i = 0; i < n; i++) {
		struct vt_counts c;

		if (!vt_read_counts(devs[i].inst, &c))
			vt_diag("vivpoll-%d (%s): %" PRIu64 " engine starts, %"
				PRIu64 " frames, %" PRIu64 " drops",
				devs[i].inst, devs[i].path, c.starts,
				c.frames, c.drops);
	}
	vt_ok(vt_module_loaded(), "vivpoll is loaded", NULL);
	vt_ok(vt_pdev_bound(), VT_PDEV " is bound to the driver", NULL);
	/* the patched kernel always has it: a missing switch fails */
	if (vp_sysctl_read(&v))
		vt_ok(false, "fs.poll_legacy_null_table is 0",
		      "cannot read " VP_SYSCTL_PATH);
	else
		vt_ok(v == 0, "fs.poll_legacy_null_table is 0", "it is %d", v);
	vt_ok(vt_wait_engines_stopped(5000 * vt_scale(), buf, sizeof(buf)),
	      "no engine is running", "still running: %s", buf);
	/* since boot, or since guest/check.sh cleared the log */
	vt_klog_check();
	/* no kmemleak scan: each stress test ended with one, and
	 * guest/check.sh scans at the end; a scan takes minutes under TCG
	 * with KASAN */
	vt_snapshot(&snap);
	vt_check_captures(devs, n);
	vt_not_run((unsigned int)(want - n), "a vivpoll device captures 5 frames by mmap",
		   "its video node was not found");
	vt_not_run((unsigned int)(want - n), "the counter controls account for the capture",
		   "its video node was not found");
	for (i = 0; i < n; i++) {
		const struct vt_counts *a = &snap.c[devs[i].inst];
		struct vt_counts b;
		char desc[96];
		int r = vt_read_counts(devs[i].inst, &b);

		snprintf(desc, sizeof(desc), "vivpoll-%d: the counter controls "
			 "account for the 5-frame capture", devs[i].inst);
		/* vt_capture() asks for 4 buffers */
		vt_ok(!r && a->present && b.starts == a->starts + 1 &&
		      b.frames >= a->frames + 5 && b.frames <= a->frames + 9,
		      desc, "read: %d; starts %" PRIu64 " -> %" PRIu64
		      ", frames %" PRIu64 " -> %" PRIu64, r, a->starts,
		      b.starts, a->frames, b.frames);
	}
	vt_restore_defaults();
	return vt_end();
}
