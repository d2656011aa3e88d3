// SPDX-License-Identifier: GPL-2.0
/*
 * video_poll_test - a wait for V4L2 events alone must not start streaming
 *
 * Since v3.4, commit 626cf2366085 ("poll: add poll_requested_events() and
 * poll_does_not_wait() functions"), select(), poll() and epoll always pass
 * a driver's poll method the events the caller asked for, and vb2 starts
 * its read() emulator (and with it streaming) only when they include
 * POLLIN or POLLRDNORM. Before, the core passed a NULL poll_table after
 * one file reported an event, on every pass after a wake-up and with a
 * zero timeout, and epoll left the key at all events: a select() that
 * waited on exceptfds for V4L2 events started streaming, and from then on
 * the queue belonged to the read() emulator.
 *
 * For each video capture node (every one found in /dev, or the one named
 * with -d), with a control event subscribed, this checks through the
 * V4L2 API alone:
 *  - select, pselect, poll, ppoll and epoll (EPOLL_CTL_ADD, and
 *    EPOLL_CTL_MOD) waiting for POLLPRI only (exceptfds, POLLPRI,
 *    EPOLLPRI), woken by the control event, with a zero timeout, and with
 *    an eventfd that is ready before or after the video fd: afterwards
 *    VIDIOC_S_FMT is not refused with EBUSY and VIDIOC_REQBUFS(0)
 *    succeeds, so nothing started streaming; the event is delivered;
 *  - the same APIs waiting for POLLIN do start the read() emulator:
 *    VIDIOC_REQBUFS then fails with EBUSY until the file is closed.
 * A node without V4L2_CAP_READWRITE or without control events, and a
 * node that is not a video capture node, is skipped with the reason.
 *
 * Usage: video_poll_test [-d /dev/videoN] [kselftest harness options]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <linux/videodev2.h>

#include "../kselftest_harness.h"

#define MAX_NODES	64
#define WAIT_MS		5000	/* the longest a wait may block */
#define RAISE_DELAY_MS	50	/* after the waiter is seen asleep */

enum wait_api {
	API_SELECT,
	API_PSELECT,
	API_POLL,
	API_PPOLL,
	API_EPOLL_ADD,	/* EPOLL_CTL_ADD with the request, epoll_wait() */
	API_EPOLL_MOD,	/* ADD with no events, then EPOLL_CTL_MOD */
};

enum wait_sit {
	SIT_WAKE,		/* block until a control event arrives */
	SIT_ZERO_TIMEOUT,	/* zero timeout, nothing pending */
	SIT_READY_BEFORE,	/* an eventfd, ready, comes first */
	SIT_READY_AFTER,	/* the same eventfd after the video fd */
};

#define REQ_PRI	1	/* exceptfds, POLLPRI, EPOLLPRI */
#define REQ_IN	2	/* readfds, POLLIN, EPOLLIN */

static const char *nodes[MAX_NODES];
static int n_nodes;
static char dev_arg[64];

/* The node under test, opened by node_open(), closed by node_close(). */
struct vnode {
	const char *path;
	int fd;			/* the video fd */
	int efd;		/* a ready eventfd, or -1 */
	int epfd;
	__u32 cid;		/* the control that raises the event */
	__s32 orig, other;	/* its value, and the one that raises it */
	bool restore;
	struct v4l2_format fmt;
	pid_t raiser;
};

FIXTURE(video_poll) {
	struct vnode v;
};

static void node_close(struct vnode *self)
{
	if (self->raiser > 0) {
		kill(self->raiser, SIGKILL);
		waitpid(self->raiser, NULL, 0);
		self->raiser = 0;
	}
	if (self->restore) {
		struct v4l2_control c = { .id = self->cid, .value = self->orig };

		ioctl(self->fd, VIDIOC_S_CTRL, &c);
		self->restore = false;
	}
	if (self->epfd >= 0)
		close(self->epfd);
	if (self->efd >= 0)
		close(self->efd);
	if (self->fd >= 0)
		close(self->fd);
	self->fd = -1;
	self->efd = -1;
	self->epfd = -1;
}

FIXTURE_SETUP(video_poll)
{
	self->v.fd = -1;
	self->v.efd = -1;
	self->v.epfd = -1;
}

FIXTURE_TEARDOWN(video_poll)
{
	node_close(&self->v);
}

static int reqbufs(int fd, unsigned int count)
{
	struct v4l2_requestbuffers rb = {
		.count = count,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};

	if (ioctl(fd, VIDIOC_REQBUFS, &rb))
		return -errno;
	return count && !rb.count ? -ENOMEM : 0;
}

/* S_FMT with the current format: 0, or -errno. */
static int s_fmt_same(struct vnode *self)
{
	struct v4l2_format f = self->fmt;

	return ioctl(self->fd, VIDIOC_S_FMT, &f) ? -errno : 0;
}

/*
 * A standard user control that a client may change without side effects
 * (brightness if there is one), and a value other than its current one.
 */
static bool pick_control(struct vnode *self)
{
	const __u32 bad = V4L2_CTRL_FLAG_DISABLED | V4L2_CTRL_FLAG_READ_ONLY |
			  V4L2_CTRL_FLAG_GRABBED | V4L2_CTRL_FLAG_INACTIVE |
			  V4L2_CTRL_FLAG_VOLATILE | V4L2_CTRL_FLAG_WRITE_ONLY;
	struct v4l2_query_ext_ctrl q = { .id = V4L2_CID_BRIGHTNESS };
	struct v4l2_control c;
	bool found = false;

	if (!ioctl(self->fd, VIDIOC_QUERY_EXT_CTRL, &q) && !(q.flags & bad) &&
	    q.maximum > q.minimum)
		found = true;
	for (q.id = V4L2_CID_BASE; !found && q.id < V4L2_CID_LASTP1; q.id++) {
		if (ioctl(self->fd, VIDIOC_QUERY_EXT_CTRL, &q))
			continue;
		if ((q.type == V4L2_CTRL_TYPE_INTEGER ||
		     q.type == V4L2_CTRL_TYPE_BOOLEAN) &&
		    !(q.flags & bad) && q.maximum > q.minimum)
			found = true;
	}
	if (!found)
		return false;
	c.id = q.id;
	if (ioctl(self->fd, VIDIOC_G_CTRL, &c))
		return false;
	self->cid = q.id;
	self->orig = c.value;
	self->other = c.value == q.minimum ? q.minimum + (__s32)(q.step ?: 1) :
					     q.minimum;
	return true;
}

/*
 * Open the node; NULL if it can be tested, else why not (in why). A
 * control event is subscribed and the queue is free.
 */
static const char *node_open(struct vnode *self, const char *path,
			     char *why, size_t len)
{
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL };
	struct v4l2_capability cap = { };
	__u32 caps;
	int r;

	self->path = path;
	self->fd = open(path, O_RDWR);
	if (self->fd < 0) {
		snprintf(why, len, "%s: open: %s", path, strerror(errno));
		return why;
	}
	if (ioctl(self->fd, VIDIOC_QUERYCAP, &cap)) {
		snprintf(why, len, "%s: not a V4L2 node (VIDIOC_QUERYCAP: %s)",
			 path, strerror(errno));
		return why;
	}
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps :
							 cap.capabilities;
	if (!(caps & V4L2_CAP_VIDEO_CAPTURE)) {
		snprintf(why, len, "%s: not a video capture node (device caps 0x%08x)",
			 path, caps);
		return why;
	}
	if (!(caps & V4L2_CAP_READWRITE)) {
		snprintf(why, len,
			 "%s: no V4L2_CAP_READWRITE: no poll can start read() streaming",
			 path);
		return why;
	}
	if (!pick_control(self)) {
		snprintf(why, len, "%s: no control to raise a control event with",
			 path);
		return why;
	}
	sub.id = self->cid;
	if (ioctl(self->fd, VIDIOC_SUBSCRIBE_EVENT, &sub)) {
		snprintf(why, len,
			 "%s: no control events (VIDIOC_SUBSCRIBE_EVENT V4L2_EVENT_CTRL: %s)",
			 path, strerror(errno));
		return why;
	}
	self->fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	r = ioctl(self->fd, VIDIOC_G_FMT, &self->fmt) ? -errno : 0;
	if (!r)
		r = reqbufs(self->fd, 0);
	if (!r)
		r = s_fmt_same(self);
	if (r) {
		snprintf(why, len,
			 "%s: the queue is not free before the test (G_FMT, REQBUFS(0), S_FMT: %s)",
			 path, strerror(-r));
		return why;
	}
	return NULL;
}

/* Child: wait until the parent sleeps in its wait, then change the control. */
static void raise_event(struct vnode *self, pid_t waiter)
{
	struct v4l2_control c = { .id = self->cid, .value = self->other };
	struct timespec delay = { 0, RAISE_DELAY_MS * 1000000L };
	char stat[64], buf[256], *p;
	int i, fd;

	snprintf(stat, sizeof(stat), "/proc/%d/stat", waiter);
	for (i = 0; i < WAIT_MS / RAISE_DELAY_MS; i++) {
		FILE *f = fopen(stat, "r");

		p = f && fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (f)
			fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			break;
		nanosleep(&delay, NULL);
	}
	nanosleep(&delay, NULL);
	/* From another file handle: a handle does not get its own changes. */
	fd = open(self->path, O_RDWR);
	_exit(fd < 0 || ioctl(fd, VIDIOC_S_CTRL, &c) ? 1 : 0);
}

static __u32 req_events(unsigned int req)
{
	return (req & REQ_PRI ? POLLPRI : 0) | (req & REQ_IN ? POLLIN : 0);
}

static int ep_add(int epfd, int fd, __u32 events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* epoll: the eventfd and the video fd, ADDed in the situation's order. */
static int epoll_setup(struct vnode *self, __u32 events, bool efd_first)
{
	int r = 0;

	self->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (self->epfd < 0)
		return -errno;
	if (self->efd >= 0 && efd_first)
		r = ep_add(self->epfd, self->efd, EPOLLIN);
	if (!r)
		r = ep_add(self->epfd, self->fd, events);
	if (!r && self->efd >= 0 && !efd_first)
		r = ep_add(self->epfd, self->efd, EPOLLIN);
	return r;
}

/*
 * EPOLL_CTL_MOD: the video fd is ADDed with no events while buffers are
 * allocated (no poll can start the read() emulator then), the buffers are
 * freed, and only MOD asks for the events.
 */
static int epoll_mod_setup(struct vnode *self, __u32 events, bool efd_first)
{
	struct epoll_event ev = { .events = events, .data.fd = self->fd };
	int r;

	r = reqbufs(self->fd, 2);
	if (!r)
		r = epoll_setup(self, 0, efd_first);
	if (!r)
		r = reqbufs(self->fd, 0);
	if (!r && epoll_ctl(self->epfd, EPOLL_CTL_MOD, self->fd, &ev))
		r = -errno;
	return r;
}

/*
 * One wait call on the video fd (and the eventfd, if any): returns the
 * number of ready fds or -errno, *rev the events reported for the video fd.
 */
static int wait_once(struct vnode *self, enum wait_api api,
		     unsigned int req, int ms, bool efd_first, __u32 *rev)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000L };
	struct pollfd p[2];
	struct epoll_event ev[2];
	fd_set rd, ex;
	int i, n = 0, v, r, nfds;

	*rev = 0;
	switch (api) {
	case API_SELECT:
	case API_PSELECT:
		FD_ZERO(&rd);
		FD_ZERO(&ex);
		if (req & REQ_IN)
			FD_SET(self->fd, &rd);
		if (req & REQ_PRI)
			FD_SET(self->fd, &ex);
		if (self->efd >= 0)
			FD_SET(self->efd, &rd);
		nfds = (self->fd > self->efd ? self->fd : self->efd) + 1;
		if (api == API_SELECT)
			r = select(nfds, &rd, NULL, &ex, &tv);
		else
			r = pselect(nfds, &rd, NULL, &ex, &ts, NULL);
		if (r < 0)
			return -errno;
		*rev = (FD_ISSET(self->fd, &rd) ? POLLIN : 0) |
		       (FD_ISSET(self->fd, &ex) ? POLLPRI : 0);
		return r;
	case API_POLL:
	case API_PPOLL:
		if (self->efd >= 0 && efd_first)
			p[n++] = (struct pollfd){ .fd = self->efd, .events = POLLIN };
		v = n;
		p[n++] = (struct pollfd){ .fd = self->fd, .events = req_events(req) };
		if (self->efd >= 0 && !efd_first)
			p[n++] = (struct pollfd){ .fd = self->efd, .events = POLLIN };
		if (api == API_POLL)
			r = poll(p, n, ms);
		else
			r = ppoll(p, n, &ts, NULL);
		if (r < 0)
			return -errno;
		*rev = p[v].revents;
		return r;
	case API_EPOLL_ADD:
	case API_EPOLL_MOD:
		r = epoll_wait(self->epfd, ev, 2, ms);
		if (r < 0)
			return -errno;
		for (i = 0; i < r; i++)
			if (ev[i].data.fd == self->fd)
				*rev = ev[i].events;
		return r;
	}
	return -EINVAL;
}

static const char *const api_names[] = {
	[API_SELECT] = "select", [API_PSELECT] = "pselect",
	[API_POLL] = "poll", [API_PPOLL] = "ppoll",
	[API_EPOLL_ADD] = "epoll (EPOLL_CTL_ADD)",
	[API_EPOLL_MOD] = "epoll (EPOLL_CTL_MOD)",
};

/* One case on one node, opened by node_open(). */
static void check_node(struct __test_metadata *_metadata,
		       struct vnode *self, enum wait_api api,
		       enum wait_sit sit, unsigned int req)
{
	bool efd_first = sit == SIT_READY_BEFORE;
	const char *what = api_names[api];
	struct v4l2_event ev;
	int r, ms, status;
	__u32 rev;

	/* An eventfd with a lower fd number than the video fd, or a higher one. */
	if (sit == SIT_READY_BEFORE || sit == SIT_READY_AFTER) {
		self->efd = eventfd(1, EFD_CLOEXEC);
		ASSERT_LE(0, self->efd);
		if (efd_first && self->efd > self->fd) {
			r = fcntl(self->fd, F_DUPFD_CLOEXEC, self->efd + 1);
			ASSERT_LE(0, r);
			close(self->fd);
			self->fd = r;
		} else if (!efd_first && self->efd < self->fd) {
			r = fcntl(self->efd, F_DUPFD_CLOEXEC, self->fd + 1);
			ASSERT_LE(0, r);
			close(self->efd);
			self->efd = r;
		}
	}
	if (api == API_EPOLL_ADD)
		r = epoll_setup(self, req_events(req), efd_first);
	else if (api == API_EPOLL_MOD)
		r = epoll_mod_setup(self, req_events(req), efd_first);
	else
		r = 0;
	ASSERT_EQ(0, r) TH_LOG("%s: %s setup: %s", self->path, what, strerror(-r));

	if (sit == SIT_WAKE) {
		pid_t waiter = getpid();

		self->raiser = fork();
		ASSERT_LE(0, self->raiser);
		if (!self->raiser)
			raise_event(self, waiter);
		self->restore = true;
	}
	ms = sit == SIT_ZERO_TIMEOUT ? 0 : WAIT_MS;
	r = wait_once(self, api, req, ms, efd_first, &rev);
	ASSERT_LE(0, r) TH_LOG("%s: %s: %s", self->path, what, strerror(-r));
	if (self->raiser > 0) {
		ASSERT_EQ(self->raiser, waitpid(self->raiser, &status, 0));
		self->raiser = 0;
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("%s: changing control 0x%08x from another file handle failed",
			       self->path, self->cid);
	}

	if (req & REQ_IN) {
		/* POLLIN started the read() emulator: the queue is its own. */
		r = reqbufs(self->fd, 0);
		EXPECT_EQ(-EBUSY, r)
			TH_LOG("%s: %s for POLLIN started no read(): REQBUFS(0): %s, not EBUSY",
			       self->path, what, r ? strerror(-r) : "success");
		/* ... until the file is closed (epoll holds it too). */
		node_close(self);
		self->fd = open(self->path, O_RDWR);
		ASSERT_LE(0, self->fd);
		r = reqbufs(self->fd, 0);
		EXPECT_EQ(0, r)
			TH_LOG("%s: REQBUFS(0) after closing the file that started read(): %s",
			       self->path, strerror(-r));
		return;
	}

	if (sit == SIT_WAKE) {
		EXPECT_NE(0U, rev & POLLPRI)
			TH_LOG("%s: %s for POLLPRI: %d, events 0x%x, no POLLPRI within %d ms",
			       self->path, what, r, rev, WAIT_MS);
		memset(&ev, 0, sizeof(ev));
		r = ioctl(self->fd, VIDIOC_DQEVENT, &ev) ? -errno : 0;
		EXPECT_EQ(0, r) TH_LOG("%s: VIDIOC_DQEVENT after %s: %s",
				       self->path, what, strerror(-r));
		EXPECT_EQ((__u32)V4L2_EVENT_CTRL, ev.type);
		EXPECT_EQ(self->cid, ev.id);
	} else {
		EXPECT_EQ(0U, rev & (POLLPRI | POLLIN))
			TH_LOG("%s: %s reported events 0x%x on the video fd with none pending",
			       self->path, what, rev);
	}
	/* Nothing may have started streaming: the queue is still free. */
	r = s_fmt_same(self);
	EXPECT_NE(-EBUSY, r)
		TH_LOG("%s: %s for POLLPRI only started streaming: VIDIOC_S_FMT gave EBUSY",
		       self->path, what);
	r = reqbufs(self->fd, 0);
	EXPECT_EQ(0, r)
		TH_LOG("%s: %s for POLLPRI only started streaming: VIDIOC_REQBUFS(0) gave %s",
		       self->path, what, strerror(-r));
}

/* A case on every node that can be tested; SKIP if there is none. */
static void run_case(struct __test_metadata *_metadata,
		     struct vnode *self, enum wait_api api,
		     enum wait_sit sit, unsigned int req)
{
	char why[256], skipped[1024] = "";
	size_t len;
	int i, tested = 0;

	for (i = 0; i < n_nodes; i++) {
		if (node_open(self, nodes[i], why, sizeof(why))) {
			len = strlen(skipped);
			snprintf(skipped + len, sizeof(skipped) - len, "%s%s",
				 len ? "; " : "", why);
			node_close(self);
			continue;
		}
		tested++;
		check_node(_metadata, self, api, sit, req);
		node_close(self);
	}
	if (!tested)
		SKIP(return, "%s", n_nodes ? skipped : "no /dev/video* node");
	if (skipped[0])
		TH_LOG("not tested: %s", skipped);
}

TEST_F(video_poll, select_wake_pri)
{
	run_case(_metadata, &self->v, API_SELECT, SIT_WAKE, REQ_PRI);
}

TEST_F(video_poll, select_zero_timeout_pri)
{
	run_case(_metadata, &self->v, API_SELECT, SIT_ZERO_TIMEOUT, REQ_PRI);
}

TEST_F(video_poll, select_ready_before_pri)
{
	run_case(_metadata, &self->v, API_SELECT, SIT_READY_BEFORE, REQ_PRI);
}

TEST_F(video_poll, select_ready_after_pri)
{
	run_case(_metadata, &self->v, API_SELECT, SIT_READY_AFTER, REQ_PRI);
}

TEST_F(video_poll, select_zero_timeout_in)
{
	run_case(_metadata, &self->v, API_SELECT, SIT_ZERO_TIMEOUT, REQ_IN);
}

TEST_F(video_poll, pselect_wake_pri)
{
	run_case(_metadata, &self->v, API_PSELECT, SIT_WAKE, REQ_PRI);
}

TEST_F(video_poll, pselect_zero_timeout_pri)
{
	run_case(_metadata, &self->v, API_PSELECT, SIT_ZERO_TIMEOUT, REQ_PRI);
}

TEST_F(video_poll, pselect_ready_before_pri)
{
	run_case(_metadata, &self->v, API_PSELECT, SIT_READY_BEFORE, REQ_PRI);
}

TEST_F(video_poll, pselect_ready_after_pri)
{
	run_case(_metadata, &self->v, API_PSELECT, SIT_READY_AFTER, REQ_PRI);
}

TEST_F(video_poll, pselect_zero_timeout_in)
{
	run_case(_metadata, &self->v, API_PSELECT, SIT_ZERO_TIMEOUT, REQ_IN);
}

TEST_F(video_poll, poll_wake_pri)
{
	run_case(_metadata, &self->v, API_POLL, SIT_WAKE, REQ_PRI);
}

TEST_F(video_poll, poll_zero_timeout_pri)
{
	run_case(_metadata, &self->v, API_POLL, SIT_ZERO_TIMEOUT, REQ_PRI);
}

TEST_F(video_poll, poll_ready_before_pri)
{
	run_case(_metadata, &self->v, API_POLL, SIT_READY_BEFORE, REQ_PRI);
}

TEST_F(video_poll, poll_ready_after_pri)
{
	run_case(_metadata, &self->v, API_POLL, SIT_READY_AFTER, REQ_PRI);
}

TEST_F(video_poll, poll_zero_timeout_in)
{
	run_case(_metadata, &self->v, API_POLL, SIT_ZERO_TIMEOUT, REQ_IN);
}

TEST_F(video_poll, ppoll_wake_pri)
{
	run_case(_metadata, &self->v, API_PPOLL, SIT_WAKE, REQ_PRI);
}

TEST_F(video_poll, ppoll_zero_timeout_pri)
{
	run_case(_metadata, &self->v, API_PPOLL, SIT_ZERO_TIMEOUT, REQ_PRI);
}

TEST_F(video_poll, ppoll_ready_before_pri)
{
	run_case(_metadata, &self->v, API_PPOLL, SIT_READY_BEFORE, REQ_PRI);
}

TEST_F(video_poll, ppoll_ready_after_pri)
{
	run_case(_metadata, &self->v, API_PPOLL, SIT_READY_AFTER, REQ_PRI);
}

TEST_F(video_poll, ppoll_zero_timeout_in)
{
	run_case(_metadata, &self->v, API_PPOLL, SIT_ZERO_TIMEOUT, REQ_IN);
}

TEST_F(video_poll, epoll_add_wake_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_ADD, SIT_WAKE, REQ_PRI);
}

TEST_F(video_poll, epoll_add_zero_timeout_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_ADD, SIT_ZERO_TIMEOUT, REQ_PRI);
}

TEST_F(video_poll, epoll_add_ready_before_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_ADD, SIT_READY_BEFORE, REQ_PRI);
}

TEST_F(video_poll, epoll_add_ready_after_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_ADD, SIT_READY_AFTER, REQ_PRI);
}

TEST_F(video_poll, epoll_add_zero_timeout_in)
{
	run_case(_metadata, &self->v, API_EPOLL_ADD, SIT_ZERO_TIMEOUT, REQ_IN);
}

TEST_F(video_poll, epoll_mod_wake_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_MOD, SIT_WAKE, REQ_PRI);
}

TEST_F(video_poll, epoll_mod_zero_timeout_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_MOD, SIT_ZERO_TIMEOUT, REQ_PRI);
}

TEST_F(video_poll, epoll_mod_ready_before_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_MOD, SIT_READY_BEFORE, REQ_PRI);
}

TEST_F(video_poll, epoll_mod_ready_after_pri)
{
	run_case(_metadata, &self->v, API_EPOLL_MOD, SIT_READY_AFTER, REQ_PRI);
}

TEST_F(video_poll, epoll_mod_zero_timeout_in)
{
	run_case(_metadata, &self->v, API_EPOLL_MOD, SIT_ZERO_TIMEOUT, REQ_IN);
}

static int is_video(const struct dirent *d)
{
	return !strncmp(d->d_name, "video", 5);
}

/* -d NODE (a path, or N for /dev/videoN) is ours; the rest the harness's. */
static int parse_args(int argc, char **argv)
{
	struct dirent **list;
	int i, n, out = 1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-d")) {
			argv[out++] = argv[i];
			continue;
		}
		if (++i == argc) {
			fprintf(stderr, "%s: -d needs a node, e.g. /dev/video0\n", argv[0]);
			exit(KSFT_FAIL);
		}
		snprintf(dev_arg, sizeof(dev_arg), "%s%s",
			 argv[i][0] >= '0' && argv[i][0] <= '9' ? "/dev/video" : "", argv[i]);
		nodes[0] = dev_arg;
		n_nodes = 1;
	}
	argv[out] = NULL;
	if (n_nodes)
		return out;
	n = scandir("/dev", &list, is_video, versionsort);
	for (i = 0; i < n; i++) {
		char *path = malloc(strlen(list[i]->d_name) + 6);

		if (path && n_nodes < MAX_NODES) {
			sprintf(path, "/dev/%s", list[i]->d_name);
			nodes[n_nodes++] = path;
		} else {
			free(path);
		}
		free(list[i]);
	}
	if (n > 0)
		free(list);
	return out;
}

#define main test_harness_main
TEST_HARNESS_MAIN
#undef main

int main(int argc, char **argv)
{
	argc = parse_args(argc, argv);
	return test_harness_main(argc, argv);
}
