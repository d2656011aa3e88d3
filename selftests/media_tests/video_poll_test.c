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
 * Each case is one wait API (select, pselect, poll, ppoll, epoll with
 * EPOLL_CTL_ADD, epoll with EPOLL_CTL_MOD), one request and one situation,
 * on a video capture node with a control event subscribed, judged through
 * the V4L2 API alone:
 *  - a wait for POLLPRI only (exceptfds, POLLPRI, EPOLLPRI), woken by the
 *    control event, with a zero timeout, or (select and poll) with a ready
 *    eventfd polled before or after the video fd, must leave the queue
 *    free: VIDIOC_S_FMT is not refused with EBUSY and VIDIOC_REQBUFS(0)
 *    succeeds. Woken, it reports POLLPRI and the event is delivered;
 *  - a wait for POLLIN must start the read() emulator: VIDIOC_REQBUFS then
 *    fails with EBUSY until the file is closed.
 * epoll has no ready-eventfd cases: epoll_wait() polls only the items on
 * its ready list, so another ready file cannot make it poll the video fd.
 *
 * A POLLPRI-only case first checks that a wait for POLLIN starts
 * streaming on the node: where nothing can start (no signal, a failing
 * sensor, a format read() cannot stream), the case would pass whatever the
 * poll core did, so it skips there with the reason. The POLLIN cases do
 * not check first: they are what fails where no wait starts streaming.
 *
 * A woken case raises the event from a thread of its own, and only once
 * the waiter sleeps in the wait under test with no event pending (how
 * that is known: raise_event()). A wait that began with an event pending
 * would return from its first pass, where the pre-v3.4 select() and poll()
 * too passed the caller's poll_table, and could pass there: such a case
 * fails instead.
 *
 * The nodes: the one named with -d, else every /dev/video* of a test
 * driver (vivid, vivpoll, vimc), the driver read from sysfs before the
 * node is opened (sysfs_driver()) and checked against VIDIOC_QUERYCAP
 * once it is. Nodes of other drivers (a real camera) are left alone, not
 * opened at all, and named. A node that is not a video capture node, has
 * no V4L2_CAP_READWRITE (vimc) or no control events is not tested, with
 * the reason. A case with no node to test skips; with no node at all, the
 * whole test does.
 *
 * Usage: video_poll_test [-d /dev/videoN] [kselftest harness options]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/videodev2.h>

#include "../kselftest_harness.h"

#define MAX_NODES	64
#define WAIT_MS		5000	/* the longest a wait may block */
#define LOOK_US		1000	/* the raiser looks at the waiter this often */

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
	SIT_READY_BEFORE,	/* a ready eventfd is polled first */
	SIT_READY_AFTER,	/* the same eventfd after the video fd */
};

enum wait_req {
	REQ_PRI,	/* exceptfds, POLLPRI, EPOLLPRI */
	REQ_IN,		/* readfds, POLLIN, EPOLLIN */
};

static const char *const api_names[] = {
	[API_SELECT] = "select", [API_PSELECT] = "pselect",
	[API_POLL] = "poll", [API_PPOLL] = "ppoll",
	[API_EPOLL_ADD] = "epoll (EPOLL_CTL_ADD)",
	[API_EPOLL_MOD] = "epoll (EPOLL_CTL_MOD)",
};

/*
 * The syscalls each wait API may sleep in, whichever the C library makes
 * (select() may be pselect6, poll() ppoll, epoll_wait() epoll_pwait; the
 * _time64 ones on 32-bit architectures).
 */
#ifdef SYS_select
#define NR_SELECT		SYS_select
#else
#define NR_SELECT		SYS_pselect6
#endif
#ifdef SYS_pselect6_time64
#define NR_PSELECT6_TIME64	SYS_pselect6_time64
#else
#define NR_PSELECT6_TIME64	SYS_pselect6
#endif
#ifdef SYS_poll
#define NR_POLL			SYS_poll
#else
#define NR_POLL			SYS_ppoll
#endif
#ifdef SYS_ppoll_time64
#define NR_PPOLL_TIME64		SYS_ppoll_time64
#else
#define NR_PPOLL_TIME64		SYS_ppoll
#endif
#ifdef SYS_epoll_wait
#define NR_EPOLL_WAIT		SYS_epoll_wait
#else
#define NR_EPOLL_WAIT		SYS_epoll_pwait
#endif
#ifdef SYS_epoll_pwait2
#define NR_EPOLL_PWAIT2		SYS_epoll_pwait2
#else
#define NR_EPOLL_PWAIT2		SYS_epoll_pwait
#endif

static const long wait_syscalls[][3] = {
	[API_SELECT] = { NR_SELECT, SYS_pselect6, NR_PSELECT6_TIME64 },
	[API_PSELECT] = { SYS_pselect6, NR_PSELECT6_TIME64, SYS_pselect6 },
	[API_POLL] = { NR_POLL, SYS_ppoll, NR_PPOLL_TIME64 },
	[API_PPOLL] = { SYS_ppoll, NR_PPOLL_TIME64, SYS_ppoll },
	[API_EPOLL_ADD] = { NR_EPOLL_WAIT, SYS_epoll_pwait, NR_EPOLL_PWAIT2 },
	[API_EPOLL_MOD] = { NR_EPOLL_WAIT, SYS_epoll_pwait, NR_EPOLL_PWAIT2 },
};

static const char *const sit_names[] = {
	[SIT_WAKE] = "woken by the event",
	[SIT_ZERO_TIMEOUT] = "with a zero timeout",
	[SIT_READY_BEFORE] = "with a ready eventfd polled before it",
	[SIT_READY_AFTER] = "with a ready eventfd polled after it",
};

/* The drivers whose nodes are tested without -d. */
static const char *const test_drivers[] = { "vivid", "vivpoll", "vimc" };

/* The nodes the cases run on, found before they run. */
static struct {
	const char *path;
	char driver[sizeof(((struct v4l2_capability *)0)->driver)];
} nodes[MAX_NODES];
static int n_nodes;
/* Why the other nodes are not tested; the nodes left alone. */
static char not_tested[512], left_alone[512];

/* What the raiser of a woken case did (raise_event()). */
enum raise_result {
	RAISED,		/* the event, once the waiter slept in the wait */
	RAISE_FAILED,	/* open() or VIDIOC_S_CTRL failed: err */
	WAIT_ENDED,	/* the wait returned before it was seen asleep in it */
	NOT_SEEN,	/* not seen asleep in the wait in WAIT_MS */
};

struct raiser {
	pthread_t thread;
	bool running;
	pid_t waiter;		/* the thread that waits */
	int done;		/* set when the wait returned */
	int result;		/* enum raise_result */
	int err;
	struct timespec asleep;	/* when the waiter was seen asleep */
	char said[48];		/* what its syscall file said last */
};

/* The node under test in a case, and the case. */
struct vnode {
	const char *path;
	const char *driver;
	int fd;			/* the video fd */
	int efd;		/* a ready eventfd, or -1 */
	int epfd;
	__u32 cid;		/* the control that raises the event */
	__s32 orig, other;	/* its value, and the one that raises it */
	bool restore;
	struct v4l2_format fmt;
	struct raiser raiser;
	enum wait_api api;
	enum wait_sit sit;
	enum wait_req req;
};

FIXTURE(video_poll) {
	struct vnode v;
};

FIXTURE_VARIANT(video_poll) {
	enum wait_api api;
	enum wait_sit sit;
	enum wait_req req;
};

FIXTURE_VARIANT_ADD(video_poll, select_wake_pri) {
	.api = API_SELECT, .sit = SIT_WAKE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, select_zero_timeout_pri) {
	.api = API_SELECT, .sit = SIT_ZERO_TIMEOUT, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, select_ready_before_pri) {
	.api = API_SELECT, .sit = SIT_READY_BEFORE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, select_ready_after_pri) {
	.api = API_SELECT, .sit = SIT_READY_AFTER, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, select_zero_timeout_in) {
	.api = API_SELECT, .sit = SIT_ZERO_TIMEOUT, .req = REQ_IN,
};

FIXTURE_VARIANT_ADD(video_poll, pselect_wake_pri) {
	.api = API_PSELECT, .sit = SIT_WAKE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, pselect_zero_timeout_pri) {
	.api = API_PSELECT, .sit = SIT_ZERO_TIMEOUT, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, pselect_ready_before_pri) {
	.api = API_PSELECT, .sit = SIT_READY_BEFORE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, pselect_ready_after_pri) {
	.api = API_PSELECT, .sit = SIT_READY_AFTER, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, pselect_zero_timeout_in) {
	.api = API_PSELECT, .sit = SIT_ZERO_TIMEOUT, .req = REQ_IN,
};

FIXTURE_VARIANT_ADD(video_poll, poll_wake_pri) {
	.api = API_POLL, .sit = SIT_WAKE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, poll_zero_timeout_pri) {
	.api = API_POLL, .sit = SIT_ZERO_TIMEOUT, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, poll_ready_before_pri) {
	.api = API_POLL, .sit = SIT_READY_BEFORE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, poll_ready_after_pri) {
	.api = API_POLL, .sit = SIT_READY_AFTER, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, poll_zero_timeout_in) {
	.api = API_POLL, .sit = SIT_ZERO_TIMEOUT, .req = REQ_IN,
};

FIXTURE_VARIANT_ADD(video_poll, ppoll_wake_pri) {
	.api = API_PPOLL, .sit = SIT_WAKE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, ppoll_zero_timeout_pri) {
	.api = API_PPOLL, .sit = SIT_ZERO_TIMEOUT, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, ppoll_ready_before_pri) {
	.api = API_PPOLL, .sit = SIT_READY_BEFORE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, ppoll_ready_after_pri) {
	.api = API_PPOLL, .sit = SIT_READY_AFTER, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, ppoll_zero_timeout_in) {
	.api = API_PPOLL, .sit = SIT_ZERO_TIMEOUT, .req = REQ_IN,
};

FIXTURE_VARIANT_ADD(video_poll, epoll_add_wake_pri) {
	.api = API_EPOLL_ADD, .sit = SIT_WAKE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, epoll_add_zero_timeout_pri) {
	.api = API_EPOLL_ADD, .sit = SIT_ZERO_TIMEOUT, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, epoll_add_zero_timeout_in) {
	.api = API_EPOLL_ADD, .sit = SIT_ZERO_TIMEOUT, .req = REQ_IN,
};

FIXTURE_VARIANT_ADD(video_poll, epoll_mod_wake_pri) {
	.api = API_EPOLL_MOD, .sit = SIT_WAKE, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, epoll_mod_zero_timeout_pri) {
	.api = API_EPOLL_MOD, .sit = SIT_ZERO_TIMEOUT, .req = REQ_PRI,
};

FIXTURE_VARIANT_ADD(video_poll, epoll_mod_zero_timeout_in) {
	.api = API_EPOLL_MOD, .sit = SIT_ZERO_TIMEOUT, .req = REQ_IN,
};

/* Tell the raiser that the wait returned, and wait for it to end. */
static void raiser_stop(struct vnode *self)
{
	if (!self->raiser.running)
		return;
	__atomic_store_n(&self->raiser.done, 1, __ATOMIC_RELEASE);
	pthread_join(self->raiser.thread, NULL);
	self->raiser.running = false;
}

static void node_close(struct vnode *self)
{
	raiser_stop(self);
	if (self->restore) {
		struct v4l2_control c = { self->cid, self->orig };

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
 * Whether a wait for POLLIN starts streaming on the node: then the read()
 * emulator owns the queue and VIDIOC_REQBUFS fails with EBUSY until the
 * file is closed. NULL if it does, else why not (in why).
 */
static const char *pollin_starts(struct vnode *self, char *why, size_t len)
{
	struct pollfd p = { .events = POLLIN };
	int r;

	p.fd = open(self->path, O_RDWR);
	if (p.fd < 0) {
		snprintf(why, len, "%s: open: %s", self->path, strerror(errno));
		return why;
	}
	r = poll(&p, 1, 0) < 0 ? -errno : reqbufs(p.fd, 0);
	close(p.fd);
	if (r == -EBUSY)
		return NULL;
	snprintf(why, len,
		 "%s (%s): a wait for POLLIN starts no streaming here (revents 0x%x, VIDIOC_REQBUFS(0) then: %s), so no POLLPRI-only wait could",
		 self->path, self->driver, p.revents,
		 r ? strerror(-r) : "success");
	return why;
}

/*
 * Open the node for a case; NULL if it can be tested, else why not (in
 * why). A control event is subscribed and the queue is free.
 */
static const char *node_open(struct vnode *self, char *why, size_t len)
{
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL };
	int r;

	self->fd = open(self->path, O_RDWR);
	if (self->fd < 0) {
		snprintf(why, len, "%s: open: %s", self->path, strerror(errno));
		return why;
	}
	if (!pick_control(self)) {
		snprintf(why, len,
			 "%s (%s): no control to raise a control event with",
			 self->path, self->driver);
		return why;
	}
	sub.id = self->cid;
	if (ioctl(self->fd, VIDIOC_SUBSCRIBE_EVENT, &sub)) {
		snprintf(why, len,
			 "%s (%s): no control events (VIDIOC_SUBSCRIBE_EVENT: %s)",
			 self->path, self->driver, strerror(errno));
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
			 "%s (%s): the queue is not free (G_FMT, REQBUFS(0), S_FMT: %s)",
			 self->path, self->driver, strerror(-r));
		return why;
	}
	return NULL;
}

/* The start of a file, NUL-terminated, or false. */
static bool read_start(const char *path, char *buf, size_t size)
{
	ssize_t n = -1;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * Whether the waiter sleeps in a syscall of the wait under test (see
 * raise_event()); said: what its syscall file said (or why not read).
 */
static bool asleep_in_wait(struct vnode *self, char *said, size_t len)
{
	char path[64], buf[256], *p;
	unsigned int i;
	long nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
		 self->raiser.waiter);
	if (!read_start(path, buf, sizeof(buf))) {
		snprintf(said, len, "stat: %s", strerror(errno));
		return false;
	}
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'S') {
		snprintf(said, len, "state %c", p ? p[2] : '?');
		return false;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall",
		 self->raiser.waiter);
	if (!read_start(path, buf, sizeof(buf))) {
		snprintf(said, len, "syscall: %s", strerror(errno));
		return false;
	}
	buf[strcspn(buf, "\n ")] = '\0';
	snprintf(said, len, "%.24s", buf);
	nr = strtol(buf, &p, 10);
	if (p == buf || *p)
		return false;
	for (i = 0; i < ARRAY_SIZE(wait_syscalls[0]); i++)
		if (nr == wait_syscalls[self->api][i])
			return true;
	return false;
}

/*
 * The raiser of a woken case, a thread: once the waiter sleeps in the
 * wait under test, change the control from a file handle of its own (a
 * handle gets no events of its own changes).
 *
 * That the waiter sleeps there is known from /proc: its
 * /proc/self/task/TID/stat says S, the interruptible sleep of select(),
 * poll() and epoll_wait() (a sleep for a page in their first pass would
 * be D), and then its /proc/self/task/TID/syscall names a syscall of the
 * wait API. That file (CONFIG_HAVE_ARCH_TRACEHOOK) names the syscall only
 * of a task that stays off the CPU and not runnable while it is read, and
 * says "running" else; being in the same thread group, the raiser may
 * read it whatever ptrace is allowed. The waiter makes no other wait
 * syscall while the raiser runs, and vb2's queue lock, the one its poll
 * could sleep for in S, is free until the raiser opens the node. Not
 * /proc/.../wchan: it names a kernel function, which changes with the
 * kernel's version, configuration and inlining (hrtimer_wakeup for every
 * wait here, on a 6.1 x86_64 tinyconfig).
 *
 * No event is pending when the wait begins: the waiter dequeued every
 * event before it started the raiser, and nothing but the raiser changes
 * the control. A wait that began with one pending would return without
 * sleeping: the raiser sees it return first (WAIT_ENDED), raises nothing,
 * and the case fails. The event the wait reports must have been queued
 * after the raiser saw the waiter asleep (its timestamp, CLOCK_MONOTONIC
 * as asleep, is checked).
 */
static void *raise_event(void *arg)
{
	struct vnode *self = arg;
	struct raiser *r = &self->raiser;
	struct v4l2_control c = { .id = self->cid, .value = self->other };
	struct timespec look = { 0, LOOK_US * 1000L };
	int i, fd;

	r->result = NOT_SEEN;
	snprintf(r->said, sizeof(r->said), "nothing: not read yet");
	for (i = 0; i < WAIT_MS * 1000 / LOOK_US; i++) {
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
			r->result = WAIT_ENDED;
			return NULL;
		}
		if (asleep_in_wait(self, r->said, sizeof(r->said)))
			break;
		nanosleep(&look, NULL);
	}
	if (i == WAIT_MS * 1000 / LOOK_US)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &r->asleep);
	fd = open(self->path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, VIDIOC_S_CTRL, &c)) {
		r->err = errno;
		r->result = RAISE_FAILED;
	} else {
		r->result = RAISED;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Dequeue every pending event, without blocking: 0, or -errno. */
static int drain_events(struct vnode *self)
{
	struct v4l2_event ev;
	int flags, r = 0;

	flags = fcntl(self->fd, F_GETFL);
	if (flags < 0 || fcntl(self->fd, F_SETFL, flags | O_NONBLOCK))
		return -errno;
	do {
		r = ioctl(self->fd, VIDIOC_DQEVENT, &ev) ? -errno : 0;
	} while (!r);
	if (r == -ENOENT)
		r = 0;
	if (fcntl(self->fd, F_SETFL, flags) && !r)
		r = -errno;
	return r;
}

/* a before b */
static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static __u32 req_events(enum wait_req req)
{
	return req == REQ_PRI ? POLLPRI : POLLIN;
}

static int ep_add(int epfd, int fd, __u32 events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/*
 * epoll: EPOLL_CTL_ADD of the video fd with the requested events, or
 * (EPOLL_CTL_MOD) with no events while buffers are allocated (no poll can
 * start the read() emulator then), the buffers freed, and only MOD asks
 * for the events.
 */
static int epoll_setup(struct vnode *self)
{
	struct epoll_event ev = { .events = req_events(self->req) };
	int r;

	self->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (self->epfd < 0)
		return -errno;
	if (self->api == API_EPOLL_ADD)
		return ep_add(self->epfd, self->fd, ev.events);
	r = reqbufs(self->fd, 2);
	if (!r)
		r = ep_add(self->epfd, self->fd, 0);
	if (!r)
		r = reqbufs(self->fd, 0);
	ev.data.fd = self->fd;
	if (!r && epoll_ctl(self->epfd, EPOLL_CTL_MOD, self->fd, &ev))
		r = -errno;
	return r;
}

/*
 * An eventfd that is ready, numbered below the video fd (polled before
 * it) or above it.
 */
static int ready_eventfd(struct vnode *self)
{
	bool before = self->sit == SIT_READY_BEFORE;
	int fd;

	self->efd = eventfd(1, EFD_CLOEXEC);
	if (self->efd < 0)
		return -errno;
	if (before && self->efd > self->fd) {
		fd = fcntl(self->fd, F_DUPFD_CLOEXEC, self->efd + 1);
		if (fd < 0)
			return -errno;
		close(self->fd);
		self->fd = fd;
	} else if (!before && self->efd < self->fd) {
		fd = fcntl(self->efd, F_DUPFD_CLOEXEC, self->fd + 1);
		if (fd < 0)
			return -errno;
		close(self->efd);
		self->efd = fd;
	}
	return 0;
}

/*
 * One wait call on the video fd (and the eventfd, if any): returns the
 * number of ready fds or -errno, *rev the events reported for the video fd.
 */
static int wait_once(struct vnode *self, int ms, __u32 *rev)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000L };
	struct pollfd p[2];
	struct epoll_event ev;
	fd_set rd, ex;
	int n = 0, v, r, nfds;

	*rev = 0;
	switch (self->api) {
	case API_SELECT:
	case API_PSELECT:
		FD_ZERO(&rd);
		FD_ZERO(&ex);
		FD_SET(self->fd, self->req == REQ_IN ? &rd : &ex);
		if (self->efd >= 0)
			FD_SET(self->efd, &rd);
		nfds = (self->fd > self->efd ? self->fd : self->efd) + 1;
		if (self->api == API_SELECT)
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
		if (self->efd >= 0 && self->sit == SIT_READY_BEFORE)
			p[n++] = (struct pollfd){ self->efd, POLLIN, 0 };
		v = n;
		p[n++] = (struct pollfd){ self->fd, req_events(self->req), 0 };
		if (self->efd >= 0 && self->sit == SIT_READY_AFTER)
			p[n++] = (struct pollfd){ self->efd, POLLIN, 0 };
		if (self->api == API_POLL)
			r = poll(p, n, ms);
		else
			r = ppoll(p, n, &ts, NULL);
		if (r < 0)
			return -errno;
		*rev = p[v].revents;
		return r;
	case API_EPOLL_ADD:
	case API_EPOLL_MOD:
		r = epoll_wait(self->epfd, &ev, 1, ms);
		if (r < 0)
			return -errno;
		*rev = r ? ev.events : 0;
		return r;
	}
	return -EINVAL;
}

/* After a wait for POLLIN: the read() emulator owns the queue. */
static void check_reading(struct __test_metadata *_metadata,
			  struct vnode *self, const char *api)
{
	int r;

	r = reqbufs(self->fd, 0);
	EXPECT_EQ(-EBUSY, r)
		TH_LOG("%s: %s for POLLIN started no read(): %s",
		       self->path, api, r ? strerror(-r) : "REQBUFS(0) worked");
	/* ... until the file is closed (epoll holds it too). */
	node_close(self);
	self->fd = open(self->path, O_RDWR);
	ASSERT_LE(0, self->fd);
	r = reqbufs(self->fd, 0);
	EXPECT_EQ(0, r)
		TH_LOG("%s: REQBUFS(0) after closing the reader: %s",
		       self->path, strerror(-r));
}

/*
 * After a wait for POLLPRI only: the event, if one was raised, reported
 * and delivered; nothing started streaming, the queue is still free.
 */
static void check_idle(struct __test_metadata *_metadata,
		       struct vnode *self, const char *api, int n, __u32 rev)
{
	const char *sit = sit_names[self->sit];
	struct v4l2_event ev = { };
	int r;

	if (self->sit == SIT_WAKE) {
		EXPECT_NE(0U, rev & POLLPRI)
			TH_LOG("%s: %s for POLLPRI: %d, events 0x%x",
			       self->path, api, n, rev);
		r = ioctl(self->fd, VIDIOC_DQEVENT, &ev) ? -errno : 0;
		EXPECT_EQ(0, r) TH_LOG("%s: VIDIOC_DQEVENT after %s: %s",
				       self->path, api, strerror(-r));
		EXPECT_EQ((__u32)V4L2_EVENT_CTRL, ev.type);
		EXPECT_EQ(self->cid, ev.id);
		EXPECT_EQ(0U, ev.pending)
			TH_LOG("%s: more than the raiser's event after %s",
			       self->path, api);
		EXPECT_FALSE(ts_before(&ev.timestamp, &self->raiser.asleep))
			TH_LOG("%s: event %lld.%09ld < %s asleep %lld.%09ld",
			       self->path, (long long)ev.timestamp.tv_sec,
			       (long)ev.timestamp.tv_nsec, api,
			       (long long)self->raiser.asleep.tv_sec,
			       (long)self->raiser.asleep.tv_nsec);
	} else {
		EXPECT_EQ(0U, rev & (POLLPRI | POLLIN))
			TH_LOG("%s: %s %s: events 0x%x, none pending",
			       self->path, api, sit, rev);
	}
	r = s_fmt_same(self);
	EXPECT_NE(-EBUSY, r)
		TH_LOG("%s: %s for POLLPRI %s started streaming: %s",
		       self->path, api, sit, "VIDIOC_S_FMT gave EBUSY");
	r = reqbufs(self->fd, 0);
	EXPECT_EQ(0, r)
		TH_LOG("%s: %s for POLLPRI %s started streaming: %s %s",
		       self->path, api, sit, "VIDIOC_REQBUFS(0) gave",
		       strerror(-r));
}

/* What the raiser of a woken case did, in words. */
static void raiser_why(struct vnode *self, int n, __u32 rev, char *why,
		       size_t len)
{
	const struct raiser *r = &self->raiser;
	const char *api = api_names[self->api];

	switch (r->result) {
	case RAISED:
		snprintf(why, len, "%s: raised once %s slept", self->path, api);
		break;
	case RAISE_FAILED:
		snprintf(why, len, "%s: VIDIOC_S_CTRL 0x%x in the raiser: %s",
			 self->path, self->cid, strerror(r->err));
		break;
	case WAIT_ENDED:
		snprintf(why, len,
			 "%s: %s for POLLPRI returned (%d, events 0x%x) before it was seen asleep in it, and no event was raised: one was pending? (/proc/self/task/%d/syscall said '%s' last)",
			 self->path, api, n, rev, r->waiter, r->said);
		break;
	default:
		snprintf(why, len,
			 "%s: %s for POLLPRI not seen asleep in it in %d ms (/proc/self/task/%d/syscall said '%s' last)",
			 self->path, api, WAIT_MS, r->waiter, r->said);
	}
}

/* The case on one node, opened by node_open(). */
static void check_node(struct __test_metadata *_metadata, struct vnode *self)
{
	const char *api = api_names[self->api];
	char why[320];
	__u32 rev;
	int n, r;

	if (self->sit == SIT_READY_BEFORE || self->sit == SIT_READY_AFTER) {
		r = ready_eventfd(self);
		ASSERT_EQ(0, r) TH_LOG("eventfd: %s", strerror(-r));
	}
	if (self->api == API_EPOLL_ADD || self->api == API_EPOLL_MOD) {
		r = epoll_setup(self);
		ASSERT_EQ(0, r) TH_LOG("%s: %s setup: %s", self->path, api,
				       strerror(-r));
	}
	if (self->sit == SIT_WAKE) {
		r = drain_events(self);
		ASSERT_EQ(0, r) TH_LOG("%s: VIDIOC_DQEVENT before %s: %s",
				       self->path, api, strerror(-r));
		self->raiser.waiter = syscall(SYS_gettid);
		self->raiser.done = 0;
		r = pthread_create(&self->raiser.thread, NULL, raise_event,
				   self);
		ASSERT_EQ(0, r) TH_LOG("pthread_create: %s", strerror(r));
		self->raiser.running = true;
		self->restore = true;
	}
	n = wait_once(self, self->sit == SIT_ZERO_TIMEOUT ? 0 : WAIT_MS, &rev);
	raiser_stop(self);
	ASSERT_LE(0, n) TH_LOG("%s: %s: %s", self->path, api, strerror(-n));
	if (self->sit == SIT_WAKE) {
		raiser_why(self, n, rev, why, sizeof(why));
		ASSERT_EQ(RAISED, self->raiser.result) TH_LOG("%s", why);
	}
	if (self->req == REQ_IN)
		check_reading(_metadata, self, api);
	else
		check_idle(_metadata, self, api, n, rev);
}

/* Append "; why" (or "why") to the list in buf. */
static void add_why(char *buf, size_t size, const char *why)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? "; " : "", why);
}

/* Why no node is tested: the reasons in buf, then the nodes found. */
static const char *no_node(char *buf, size_t size)
{
	size_t len;

	if (not_tested[0])
		add_why(buf, size, not_tested);
	if (!buf[0])
		add_why(buf, size,
			"no /dev/video* node of a test driver (vivid, vivpoll, vimc)");
	len = strlen(buf);
	if (left_alone[0])
		snprintf(buf + len, size - len, "; left alone: %s", left_alone);
	return buf;
}

/* The case on every node that can be tested; SKIP if there is none. */
TEST_F(video_poll, wait)
{
	char why[320], untested[1024] = "";
	int i, tested = 0;

	self->v.api = variant->api;
	self->v.sit = variant->sit;
	self->v.req = variant->req;
	if (variant->sit == SIT_WAKE && access("/proc/self/syscall", R_OK))
		SKIP(return,
		     "/proc/self/syscall: %s: no way to see the waiter sleep in the wait (CONFIG_HAVE_ARCH_TRACEHOOK)",
		     strerror(errno));
	for (i = 0; i < n_nodes; i++) {
		self->v.path = nodes[i].path;
		self->v.driver = nodes[i].driver;
		if ((variant->req == REQ_PRI &&
		     pollin_starts(&self->v, why, sizeof(why))) ||
		    node_open(&self->v, why, sizeof(why))) {
			add_why(untested, sizeof(untested), why);
			node_close(&self->v);
			continue;
		}
		tested++;
		check_node(_metadata, &self->v);
		node_close(&self->v);
	}
	if (!tested)
		SKIP(return, "%s", no_node(untested, sizeof(untested)));
	if (untested[0])
		TH_LOG("not tested: %s", untested);
}

static bool is_test_driver(const char *driver)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(test_drivers); i++)
		if (!strcmp(driver, test_drivers[i]))
			return true;
	return false;
}

/*
 * The driver that owns the node at path, from sysfs, without opening the
 * node: /sys/dev/char/MAJOR:MINOR is the node's video4linux class device
 * (found by the node's device number, whatever /dev calls it), and its
 * device/driver link names the driver bound to the device the V4L2 device
 * belongs to (the platform devices of vivid, vivpoll and vimc, the USB
 * interface of uvcvideo). Not the class device's name attribute, which is
 * the video device's name ("vivid-000-vid-cap", "Raw Capture 0"), nor its
 * uevent (MAJOR, MINOR, DEVNAME). 0 with the name in driver, or -errno
 * with why not in why.
 */
static int sysfs_driver(const char *path, char *driver, size_t size,
			char *why, size_t len)
{
	char link[64], target[PATH_MAX], *name;
	struct stat st;
	ssize_t n;
	int err;

	if (stat(path, &st)) {
		err = errno;
		snprintf(why, len, "stat: %s", strerror(err));
		return -err;
	}
	if (!S_ISCHR(st.st_mode)) {
		snprintf(why, len, "not a character device");
		return -ENODEV;
	}
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device/driver",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		err = errno;
		snprintf(why, len, "%s: %s", link, strerror(err));
		return -err;
	}
	target[n] = '\0';
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	if (strlen(name) >= size) {
		snprintf(why, len, "%s: a name too long", link);
		return -ENAMETOOLONG;
	}
	memcpy(driver, name, strlen(name) + 1);
	return 0;
}

/*
 * The node at path, if it is a video capture node with read() and, with
 * test_only, of a test driver; else say why not. Without test_only (-d)
 * any driver's node is tested. With it, the driver is learnt from sysfs
 * first: a node of another driver, or of a driver sysfs does not name, is
 * left alone, never opened; a test driver's is opened, and its
 * VIDIOC_QUERYCAP must name the same driver.
 */
static void add_node(const char *path, bool test_only)
{
	struct v4l2_capability cap = { };
	char why[200] = "", driver[sizeof(cap.driver)], sysfs[64], err[120];
	__u32 caps;
	int fd;

	if (test_only) {
		if (sysfs_driver(path, sysfs, sizeof(sysfs), err,
				 sizeof(err))) {
			snprintf(why, sizeof(why), "%s (driver unknown: %s)",
				 path, err);
			add_why(left_alone, sizeof(left_alone), why);
			return;
		}
		if (!is_test_driver(sysfs)) {
			snprintf(why, sizeof(why), "%s (%s)", path, sysfs);
			add_why(left_alone, sizeof(left_alone), why);
			return;
		}
	}
	fd = open(path, O_RDWR);
	if (fd < 0) {
		snprintf(why, sizeof(why), "%s: open: %s", path,
			 strerror(errno));
		goto out;
	}
	if (ioctl(fd, VIDIOC_QUERYCAP, &cap)) {
		snprintf(why, sizeof(why),
			 "%s: not a V4L2 node (VIDIOC_QUERYCAP: %s)", path,
			 strerror(errno));
		goto out;
	}
	memcpy(driver, cap.driver, sizeof(driver));
	driver[sizeof(driver) - 1] = '\0';
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps :
							 cap.capabilities;
	if (test_only && strcmp(driver, sysfs))
		snprintf(why, sizeof(why),
			 "%s (%s): VIDIOC_QUERYCAP names driver %s",
			 path, sysfs, driver);
	else if (!(caps & V4L2_CAP_VIDEO_CAPTURE))
		snprintf(why, sizeof(why),
			 "%s (%s): not a video capture node (device caps 0x%08x)",
			 path, driver, caps);
	else if (!(caps & V4L2_CAP_READWRITE))
		snprintf(why, sizeof(why),
			 "%s (%s): no V4L2_CAP_READWRITE: no wait can start streaming on it",
			 path, driver);
	else if (n_nodes == MAX_NODES)
		snprintf(why, sizeof(why), "%s (%s): more than %d nodes",
			 path, driver, MAX_NODES);
out:
	if (fd >= 0)
		close(fd);
	if (why[0]) {
		add_why(not_tested, sizeof(not_tested), why);
		return;
	}
	nodes[n_nodes].path = path;
	memcpy(nodes[n_nodes].driver, driver, sizeof(driver));
	n_nodes++;
}

static int is_video(const struct dirent *d)
{
	return !strncmp(d->d_name, "video", 5);
}

/*
 * -d NODE (a path, or N for /dev/videoN) is this test's, as in
 * video_device_test; the other arguments are the harness's.
 */
int main(int argc, char **argv)
{
	static char num[32];
	struct dirent **list;
	const char *dev = NULL;
	char *path;
	int i, n, out = 1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-d")) {
			argv[out++] = argv[i];
			continue;
		}
		if (++i == argc) {
			fprintf(stderr, "%s: -d needs a node (/dev/videoN)\n",
				argv[0]);
			return KSFT_FAIL;
		}
		dev = argv[i];
		if (dev[0] >= '0' && dev[0] <= '9') {
			snprintf(num, sizeof(num), "/dev/video%s", argv[i]);
			dev = num;
		}
	}
	argv[out] = NULL;
	if (dev) {
		add_node(dev, false);
	} else {
		n = scandir("/dev", &list, is_video, versionsort);
		for (i = 0; i < n; i++) {
			if (asprintf(&path, "/dev/%s", list[i]->d_name) > 0)
				add_node(path, true);
			free(list[i]);
		}
		if (n > 0)
			free(list);
	}
	if (!n_nodes) {
		char why[1024] = "";

		ksft_print_header();
		ksft_exit_skip("%s\n", no_node(why, sizeof(why)));
	}
	if (left_alone[0])
		fprintf(stderr, "# left alone (%s): %s\n",
			"not a test driver's by sysfs, not opened; -d NODE tests any",
			left_alone);
	if (not_tested[0])
		fprintf(stderr, "# not tested: %s\n", not_tested);
	return test_harness_run(out, argv);
}
