// SPDX-License-Identifier: GPL-2.0
/*
 * 16-select-keys: what select() asks of a file in exceptfds alone, with
 * net.core.busy_poll and fs.poll_legacy_null_table, as patch 1's
 * Documentation/admin-guide/sysctl/fs.rst says (fs/select.c: the key is
 * POLLEX_SET, EPOLLPRI | EPOLLNVAL, 0x22, with POLL_BUSY_LOOP, 0x8000,
 * added while do_select()'s busy_flag is set: from the start of a call
 * when net_busy_loop_on(), never in the copy for the switch on; and the
 * switch on hands NULL where the table's queueing function is cleared).
 *
 * exceptfds_alone: a select() of the video fd in exceptfds alone, with a
 * 50 ms timeout and nothing pending, so that it makes the pass that
 * registers its waiter and, after the timeout, one more. Each .poll call's
 * requested events come from the vivpoll_poll trace event:
 * - the switch 0, busy_poll 0: 0x22 on every pass; the engine stays off;
 * - the switch 0, busy_poll 50: 0x8022 on the first pass (vivpoll never
 *   reports POLL_BUSY_LOOP, so select() stops busy polling after it),
 *   0x8022 or 0x22 after; the engine stays off;
 * - the switch 1, either busy_poll: 0x22 on the first pass (the pass that
 *   registers keeps its table, and its key), NULL (0xffffffff) on the pass
 *   after the timeout, nothing else: 0x8022 never.
 * net.core.busy_poll needs CONFIG_NET_RX_BUSY_POLL (y where CONFIG_NET is,
 * as in every guest kernel): without it the test fails. The switch and
 * net.core.busy_poll are as they were after every test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"
#include "lib.h"
#include "polljudge.h"

#define BUSY_POLL	"/proc/sys/net/core/busy_poll"
#define BUSY_KEY	(PJ_SELECT_EX_KEY | 0x8000)	/* POLL_BUSY_LOOP */

FIXTURE(keys) {
	struct vt_dev dev;
	int fd;
	struct vp_polltrace pt;
	uint64_t starts;
	char busy_was[32];
};

FIXTURE_VARIANT(keys) {
	int on;			/* fs.poll_legacy_null_table */
	const char *busy;	/* net.core.busy_poll, microseconds */
};

FIXTURE_VARIANT_ADD(keys, switch_off) { 0, "0" };
FIXTURE_VARIANT_ADD(keys, switch_off_busy_poll) { 0, "50" };
FIXTURE_VARIANT_ADD(keys, switch_on) { 1, "0" };
FIXTURE_VARIANT_ADD(keys, switch_on_busy_poll) { 1, "50" };

FIXTURE_SETUP(keys)
{
	self->fd = -1;
	ASSERT_TRUE(vp_sysctl_present()) TH_LOG(VP_SYSCTL_PATH " is missing");
	ASSERT_EQ(0, vp_sysctl_write(0));
	ASSERT_LT(0, vt_read_file(BUSY_POLL, self->busy_was,
				  sizeof(self->busy_was)))
		TH_LOG(BUSY_POLL " cannot be read: CONFIG_NET_RX_BUSY_POLL?");
	ASSERT_LT(0, vt_devices(&self->dev, 1)) TH_LOG("no vivpoll device");
	self->fd = vp_open(self->dev.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, vp_subscribe(self->fd, V4L2_EVENT_CTRL,
				  V4L2_CID_BRIGHTNESS, 0));
	ASSERT_EQ(0, vp_polltrace_open(&self->pt, self->dev.inst));
	ASSERT_EQ(0, vp_engine_starts(self->fd, 0, &self->starts));
	ASSERT_EQ(0, vt_write_file(BUSY_POLL, variant->busy));
}

FIXTURE_TEARDOWN(keys)
{
	vp_sysctl_write(0);
	if (self->busy_was[0])
		vt_write_file(BUSY_POLL, self->busy_was);
	vp_polltrace_close(&self->pt);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(keys, exceptfds_alone)
{
	struct timeval tv = { 0, 50000 };
	uint32_t reqs[PJ_MAX_REQS], first;
	bool busy = strcmp(variant->busy, "0");
	int n, i, all = 0, busy_keys = 0, other = 0;
	uint64_t starts;
	char buf[512];
	fd_set ex;
	long r;

	ASSERT_EQ(0, vt_switch_set(variant->on));
	ASSERT_EQ(0, vp_polltrace_reset(&self->pt));
	FD_ZERO(&ex);
	FD_SET(self->fd, &ex);
	r = syscall(SYS_select, self->fd + 1, NULL, NULL, &ex, &tv);
	vp_sysctl_write(0);
	ASSERT_EQ(0, r) TH_LOG("select() returned %ld (%s): an event pending?",
			       r, r < 0 ? strerror(errno) : "ready");
	n = vt_polltrace_reqs(&self->pt, reqs, PJ_MAX_REQS);
	ASSERT_LE(0, n) TH_LOG("the trace: %s", strerror(-n));
	ASSERT_GE(PJ_MAX_REQS, n);
	TH_LOG("switch %d, busy_poll %s: .poll asked %s", variant->on,
	       variant->busy, vt_reqs_str(reqs, n, buf, sizeof(buf)));
	ASSERT_LE(2, n) TH_LOG("fewer passes than the first and the one after the timeout");
	first = busy && !variant->on ? BUSY_KEY : PJ_SELECT_EX_KEY;
	EXPECT_EQ(first, reqs[0]) TH_LOG("the first pass");
	for (i = 0; i < n; i++) {
		all += reqs[i] == PJ_ALL;
		busy_keys += reqs[i] == BUSY_KEY;
		other += reqs[i] != PJ_ALL && reqs[i] != BUSY_KEY &&
			 reqs[i] != PJ_SELECT_EX_KEY;
	}
	EXPECT_EQ(0, other) TH_LOG("a key other than 0x22, 0x8022 or NULL");
	if (variant->on) {
		EXPECT_EQ(0, busy_keys) TH_LOG("0x8022 with the switch on");
		EXPECT_LT(0, all) TH_LOG("no NULL after the timeout");
	} else {
		EXPECT_EQ(0, all) TH_LOG("NULL with the switch off");
		if (!busy) {
			EXPECT_EQ(0, busy_keys)
				TH_LOG("0x8022 without busy_poll");
		}
		ASSERT_EQ(0, vp_engine_starts(self->fd, 0, &starts));
		EXPECT_EQ(self->starts, starts) TH_LOG("the engine started");
	}
}

TEST_HARNESS_MAIN
