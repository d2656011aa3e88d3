// SPDX-License-Identifier: GPL-2.0
/*
 * 14-uring-epoll: io_uring's epoll opcodes follow fs.poll_legacy_null_table
 * as epoll_ctl() and epoll_wait() do, as patch 1's
 * Documentation/admin-guide/sysctl/fs.rst says. (io_uring's and aio's
 * poll requests, IORING_OP_POLL_ADD and IOCB_CMD_POLL, which it leaves
 * alone, are rows of the matrix, 10-poll-matrix: with the switch on too,
 * neither starts the engine nor asks for every event.)
 *
 * - epoll_ctl_add: IORING_OP_EPOLL_CTL adds the video fd, EPOLLPRI only, to
 *   an epoll instance (io_epoll_ctl(): do_epoll_ctl(), then ep_insert(),
 *   which reads the switch): at 0 the driver's .poll is asked for
 *   EPOLLPRI | EPOLLERR | EPOLLHUP (0x1a) alone and the engine does not
 *   start; at 1 for every event (the key left at ~0) and it starts.
 * - epoll_ctl_mod: the same fd added with no event (switch 0), then
 *   IORING_OP_EPOLL_CTL modifies it to EPOLLPRI (ep_modify()): at 0 the
 *   driver is asked for 0x1a alone, no start; at 1 for every event (NULL),
 *   and the engine starts.
 * - epoll_wait: with the item added (switch 0) and its control event
 *   pending, IORING_OP_EPOLL_WAIT (6.15 and later: epoll_sendevents(),
 *   which reads the switch for its ep_try_send_events()) reports it: at 0
 *   the driver is asked for 0x1a alone, no start; at 1 for every event
 *   (NULL), and the engine starts. Debian 12's liburing 2.3 has no helper
 *   for it: the sqe is filled here after 7.2's include/uapi/linux/io_uring.h.
 *   A kernel without it (its io_uring probe says so) SKIPs, which
 *   tests/skips.txt lists for 6.1 and 6.12 alone.
 *
 * The switch is 0 after every test, and the brightness as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"
#include "lib.h"
#include "polljudge.h"

/*
 * include/uapi/linux/io_uring.h of 7.2: enum io_uring_op's
 * IORING_OP_EPOLL_WAIT (fd: the epoll instance, addr: its events, len:
 * maxevents; off, rw_flags, buf_index and splice_fd_in 0). Not in the
 * headers of Debian 12 (liburing 2.3, linux-libc-dev 6.1).
 */
#define OP_EPOLL_WAIT	59

FIXTURE(uring) {
	struct vt_dev dev;
	int fd, raise_fd, ep;
	bool ring_up;
	struct io_uring ring;
	struct vp_polltrace pt;
	uint64_t starts;
	int32_t bright;
};

FIXTURE_VARIANT(uring) {
	int on;
};

FIXTURE_VARIANT_ADD(uring, switch_off) { 0 };
FIXTURE_VARIANT_ADD(uring, switch_on) { 1 };

FIXTURE_SETUP(uring)
{
	int r;

	self->fd = self->raise_fd = self->ep = -1;
	ASSERT_TRUE(vp_sysctl_present()) TH_LOG(VP_SYSCTL_PATH " is missing");
	ASSERT_EQ(0, vp_sysctl_write(0));
	ASSERT_LT(0, vt_devices(&self->dev, 1)) TH_LOG("no vivpoll device");
	self->fd = vp_open(self->dev.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->raise_fd = vp_open(self->dev.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->raise_fd);
	ASSERT_EQ(0, vp_ctrl_get(self->raise_fd, V4L2_CID_BRIGHTNESS,
				 &self->bright));
	ASSERT_EQ(0, vp_subscribe(self->fd, V4L2_EVENT_CTRL,
				  V4L2_CID_BRIGHTNESS, 0));
	ASSERT_EQ(0, vp_polltrace_open(&self->pt, self->dev.inst));
	ASSERT_EQ(0, vp_engine_starts(self->fd, 0, &self->starts));
	self->ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, self->ep);
	r = io_uring_queue_init(4, &self->ring, 0);
	ASSERT_EQ(0, r) TH_LOG("io_uring_queue_init: %s", strerror(-r));
	self->ring_up = true;
}

FIXTURE_TEARDOWN(uring)
{
	vp_sysctl_write(0);
	if (self->ring_up)
		io_uring_queue_exit(&self->ring);
	if (self->ep >= 0)
		close(self->ep);
	vp_polltrace_close(&self->pt);
	if (self->fd >= 0)
		close(self->fd);
	if (self->raise_fd >= 0) {
		vp_ctrl_set(self->raise_fd, V4L2_CID_BRIGHTNESS, self->bright);
		close(self->raise_fd);
	}
}

/* Submit the prepared sqe and wait for its completion: its res. */
static int submit_one(struct io_uring *ring, int *res)
{
	struct io_uring_cqe *cqe;
	int r = io_uring_submit_and_wait(ring, 1);

	if (r < 0)
		return r;
	r = io_uring_wait_cqe(ring, &cqe);
	if (r < 0)
		return r;
	*res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

TEST_F(uring, epoll_ctl_add)
{
	struct epoll_event ev = { .events = EPOLLPRI };
	struct io_uring_sqe *sqe;
	int r, res = -1;

	ASSERT_EQ(0, vt_switch_set(variant->on));
	ASSERT_EQ(0, vp_polltrace_reset(&self->pt));
	sqe = io_uring_get_sqe(&self->ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, sizeof(*sqe));
	io_uring_prep_epoll_ctl(sqe, self->ep, self->fd, EPOLL_CTL_ADD, &ev);
	r = submit_one(&self->ring, &res);
	vp_sysctl_write(0);
	ASSERT_EQ(0, r) TH_LOG("io_uring: %s", strerror(-r));
	ASSERT_EQ(0, res) TH_LOG("IORING_OP_EPOLL_CTL: %s", strerror(-res));
	pj_judge(_metadata, &self->pt, self->fd, self->starts, variant->on,
		 PJ_EPOLL_KEY, "IORING_OP_EPOLL_CTL(ADD, EPOLLPRI)");
}

TEST_F(uring, epoll_ctl_mod)
{
	struct epoll_event ev = { .events = 0 };
	struct io_uring_sqe *sqe;
	int r, res = -1;

	ASSERT_EQ(0, epoll_ctl(self->ep, EPOLL_CTL_ADD, self->fd, &ev));
	ASSERT_EQ(0, vt_switch_set(variant->on));
	ASSERT_EQ(0, vp_polltrace_reset(&self->pt));
	sqe = io_uring_get_sqe(&self->ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, sizeof(*sqe));
	ev.events = EPOLLPRI;
	io_uring_prep_epoll_ctl(sqe, self->ep, self->fd, EPOLL_CTL_MOD, &ev);
	r = submit_one(&self->ring, &res);
	vp_sysctl_write(0);
	ASSERT_EQ(0, r) TH_LOG("io_uring: %s", strerror(-r));
	ASSERT_EQ(0, res) TH_LOG("IORING_OP_EPOLL_CTL: %s", strerror(-res));
	pj_judge(_metadata, &self->pt, self->fd, self->starts, variant->on,
		 PJ_EPOLL_KEY, "IORING_OP_EPOLL_CTL(MOD, EPOLLPRI)");
}

TEST_F(uring, epoll_wait)
{
	struct epoll_event ev = { .events = EPOLLPRI }, evs[4];
	struct io_uring_probe *probe;
	struct io_uring_sqe *sqe;
	bool has_op;
	int32_t v;
	int r, res = -1;

	probe = io_uring_get_probe_ring(&self->ring);
	ASSERT_NE(NULL, probe) TH_LOG("io_uring_get_probe_ring failed");
	has_op = io_uring_opcode_supported(probe, OP_EPOLL_WAIT);
	io_uring_free_probe(probe);
	if (!has_op)
		SKIP(return, "IORING_OP_EPOLL_WAIT (%d) is not in this kernel (its io_uring probe): 6.15 added it",
		     OP_EPOLL_WAIT);
	ASSERT_EQ(0, epoll_ctl(self->ep, EPOLL_CTL_ADD, self->fd, &ev));
	ASSERT_EQ(0, vp_ctrl_get(self->raise_fd, V4L2_CID_BRIGHTNESS, &v));
	ASSERT_EQ(0, vp_ctrl_set(self->raise_fd, V4L2_CID_BRIGHTNESS,
				 v == 100 ? 101 : 100));
	ASSERT_EQ(0, vt_switch_set(variant->on));
	ASSERT_EQ(0, vp_polltrace_reset(&self->pt));
	sqe = io_uring_get_sqe(&self->ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, sizeof(*sqe));
	io_uring_prep_rw(OP_EPOLL_WAIT, sqe, self->ep, evs, 4, 0);
	r = submit_one(&self->ring, &res);
	vp_sysctl_write(0);
	ASSERT_EQ(0, r) TH_LOG("io_uring: %s", strerror(-r));
	ASSERT_EQ(1, res) TH_LOG("IORING_OP_EPOLL_WAIT: %d (%s)", res,
				 res < 0 ? strerror(-res) : "events");
	EXPECT_TRUE(evs[0].events & EPOLLPRI);
	pj_judge(_metadata, &self->pt, self->fd, self->starts, variant->on,
		 PJ_EPOLL_KEY, "IORING_OP_EPOLL_WAIT");
}

TEST_HARNESS_MAIN
