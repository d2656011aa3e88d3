// SPDX-License-Identifier: GPL-2.0
/*
 * 12-epoll-nested: an epoll instance polled as a file (nested epoll, or an
 * epoll fd in select() or poll()) follows fs.poll_legacy_null_table, and
 * reads it again each time it scans its own files, as patch 1's
 * Documentation/admin-guide/sysctl/fs.rst says (fs/eventpoll.c:
 * __ep_eventpoll_poll() reads the switch for its scan; ep_item_poll_legacy()
 * hands an item NULL).
 *
 * Device B is watched through an epoll instance, the inner one (its item:
 * B's video fd, EPOLLPRI only), which the call under test watches: an
 * outer epoll_wait() (nested epoll: the inner instance an item of the outer
 * one, EPOLLIN), select() (the inner fd in readfds) or poll() (POLLIN).
 * Device A, where a test says so, is watched by the call itself for POLLPRI
 * (exceptfds alone, POLLPRI, an EPOLLPRI item of the outer instance). What
 * each device's .poll was asked comes from its vivpoll_poll trace event,
 * whether its engine started from its Engine Starts control.
 *
 * - follows_the_switch: B's control event pending, the call made with the
 *   switch at the variant's value (0 when the instances were set up, so
 *   that EPOLL_CTL_ADD does not matter): at 0 B is asked for what its item
 *   asks, EPOLLPRI | EPOLLERR | EPOLLHUP (0x1a) and never POLLIN, and its
 *   engine does not start; at 1 for every event (NULL, 0xffffffff) and it
 *   starts.
 * - flipped_while_it_sleeps: nothing pending, the call begins at the
 *   variant's value and sleeps (seen in /proc); a raiser flips the switch
 *   and raises an event on A and on B (SCHED_FIFO on the waiter's CPU, so
 *   that the waiter runs again only once both are raised; the call must
 *   report both). B, polled by the inner instance's scan after the flip, is
 *   asked as the new value says; A, polled by the call itself, as the value
 *   it read when it began.
 *
 * vivpoll is reloaded with n_devs=2 and, by the last test, with its
 * defaults. The switch is 0 after every test.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"
#include "lib.h"
#include "polljudge.h"

#define ASLEEP_MS	3000	/* the raiser waits this long for the sleep */

enum { A, B };
enum api { API_EPOLL, API_SELECT, API_POLL };

static const long api_nr[] = {
	[API_EPOLL] = SYS_epoll_wait,
	[API_SELECT] = SYS_select,
	[API_POLL] = SYS_poll,
};

FIXTURE(nest) {
	struct vt_dev dev[2];
	int fd[2];		/* A's and B's video fds, subscribed */
	int raise_fd[2];	/* the raiser's own fds of A and B */
	int inner, outer;	/* outer: API_EPOLL only */
	struct vp_polltrace pt[2];
	uint64_t starts[2];
	int32_t bright[2];
};

FIXTURE_VARIANT(nest) {
	enum api api;
	int on;			/* the switch when the call begins */
};

FIXTURE_VARIANT_ADD(nest, epoll_off) { API_EPOLL, 0 };
FIXTURE_VARIANT_ADD(nest, epoll_on) { API_EPOLL, 1 };
FIXTURE_VARIANT_ADD(nest, select_off) { API_SELECT, 0 };
FIXTURE_VARIANT_ADD(nest, select_on) { API_SELECT, 1 };
FIXTURE_VARIANT_ADD(nest, poll_off) { API_POLL, 0 };
FIXTURE_VARIANT_ADD(nest, poll_on) { API_POLL, 1 };

static int epoll_add(int ep, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

FIXTURE_SETUP(nest)
{
	const char *why;
	int i, n;

	self->inner = self->outer = -1;
	for (i = A; i <= B; i++)
		self->fd[i] = self->raise_fd[i] = -1;
	ASSERT_TRUE(vp_sysctl_present()) TH_LOG(VP_SYSCTL_PATH " is missing");
	ASSERT_EQ(0, vp_sysctl_write(0));
	n = vt_devices(self->dev, 2);
	if (n < 2) {
		ASSERT_EQ(0, vt_reload("n_devs=2", 5000 * vt_scale(), &why))
			TH_LOG("%s", why);
		n = vt_devices(self->dev, 2);
	}
	ASSERT_EQ(2, n) TH_LOG("vivpoll n_devs=2 gave %d device(s)", n);
	for (i = A; i <= B; i++) {
		self->fd[i] = vp_open(self->dev[i].path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, self->fd[i]) TH_LOG("open %s: %s",
			self->dev[i].path, strerror(-self->fd[i]));
		self->raise_fd[i] = vp_open(self->dev[i].path,
					    O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, self->raise_fd[i]);
		ASSERT_EQ(0, vp_ctrl_get(self->raise_fd[i],
					 V4L2_CID_BRIGHTNESS,
					 &self->bright[i]));
		ASSERT_EQ(0, vp_subscribe(self->fd[i], V4L2_EVENT_CTRL,
					  V4L2_CID_BRIGHTNESS, 0));
		ASSERT_EQ(0, vp_polltrace_open(&self->pt[i],
					       self->dev[i].inst))
			TH_LOG("the vivpoll_poll trace event of vivpoll-%d",
			       self->dev[i].inst);
		ASSERT_EQ(0, vp_engine_starts(self->fd[i], 0,
					      &self->starts[i]));
	}
	self->inner = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, self->inner);
	ASSERT_EQ(0, epoll_add(self->inner, self->fd[B], EPOLLPRI));
	if (variant->api == API_EPOLL) {
		self->outer = epoll_create1(EPOLL_CLOEXEC);
		ASSERT_LE(0, self->outer);
		ASSERT_EQ(0, epoll_add(self->outer, self->inner, EPOLLIN));
		ASSERT_EQ(0, epoll_add(self->outer, self->fd[A], EPOLLPRI));
	}
}

FIXTURE_TEARDOWN(nest)
{
	int i;

	vp_sysctl_write(0);
	if (self->outer >= 0)
		close(self->outer);
	if (self->inner >= 0)
		close(self->inner);
	for (i = A; i <= B; i++) {
		vp_polltrace_close(&self->pt[i]);
		if (self->fd[i] >= 0)
			close(self->fd[i]);
		if (self->raise_fd[i] >= 0) {
			vp_ctrl_set(self->raise_fd[i], V4L2_CID_BRIGHTNESS,
				    self->bright[i]);
			close(self->raise_fd[i]);
		}
	}
}

/* A control event for the subscribed fd of device i, from the raiser's. */
static int raise_event(FIXTURE_DATA(nest) *self, int i)
{
	int32_t v;
	int r = vp_ctrl_get(self->raise_fd[i], V4L2_CID_BRIGHTNESS, &v);

	return r ? r : vp_ctrl_set(self->raise_fd[i], V4L2_CID_BRIGHTNESS,
				   v == 100 ? 101 : 100);
}

/*
 * One call of the API under test, with A watched too if with_a; *ready
 * gets which of A and B (through the inner instance) it reported.
 */
static int wait_call(FIXTURE_DATA(nest) *self, enum api api, bool with_a,
		     int timeout_ms, bool ready[2])
{
	struct epoll_event evs[4];
	struct pollfd p[2] = {
		{ .fd = self->inner, .events = POLLIN },
		{ .fd = self->fd[A], .events = POLLPRI },
	};
	struct timeval tv = { timeout_ms / 1000, timeout_ms % 1000 * 1000 };
	fd_set rd, ex;
	long r;
	int i;

	ready[A] = ready[B] = false;
	switch (api) {
	case API_EPOLL:
		r = syscall(SYS_epoll_wait, self->outer, evs, 4, timeout_ms);
		for (i = 0; i < r; i++) {
			if (evs[i].data.fd == self->inner)
				ready[B] = true;
			if (evs[i].data.fd == self->fd[A])
				ready[A] = true;
		}
		break;
	case API_SELECT:
		FD_ZERO(&rd);
		FD_ZERO(&ex);
		FD_SET(self->inner, &rd);
		if (with_a)
			FD_SET(self->fd[A], &ex);
		r = syscall(SYS_select, (self->inner > self->fd[A] ?
				self->inner : self->fd[A]) + 1, &rd, NULL,
			    &ex, &tv);
		ready[B] = r > 0 && FD_ISSET(self->inner, &rd);
		ready[A] = r > 0 && FD_ISSET(self->fd[A], &ex);
		break;
	default:
		r = syscall(SYS_poll, p, with_a ? 2 : 1, timeout_ms);
		ready[B] = r > 0 && (p[0].revents & POLLIN);
		ready[A] = r > 0 && with_a && (p[1].revents & POLLPRI);
		break;
	}
	return r < 0 ? -errno : (int)r;
}

/* Device i of the fixture, judged by pj_judge(). */
static void judge(struct __test_metadata *_metadata, FIXTURE_DATA(nest) *self,
		  int i, bool legacy, uint32_t key, const char *who)
{
	char name[64];

	snprintf(name, sizeof(name), "%s (vivpoll-%d)", who, self->dev[i].inst);
	pj_judge(_metadata, &self->pt[i], self->fd[i], self->starts[i], legacy,
		 key, name);
}

static uint32_t a_key(enum api api)
{
	return api == API_SELECT ? PJ_SELECT_EX_KEY : PJ_EPOLL_KEY;
}

TEST_F(nest, follows_the_switch)
{
	bool ready[2];
	int r;

	ASSERT_EQ(0, raise_event(self, B));
	ASSERT_EQ(0, vt_switch_set(variant->on));
	for (r = A; r <= B; r++) {
		ASSERT_EQ(0, vp_polltrace_reset(&self->pt[r]));
	}
	r = wait_call(self, variant->api, false, 2000 * vt_scale(), ready);
	vp_sysctl_write(0);
	ASSERT_LT(0, r) TH_LOG("the call returned %d (%s)", r,
			       r < 0 ? strerror(-r) : "nothing ready");
	EXPECT_TRUE(ready[B]) TH_LOG("the inner instance was not reported");
	judge(_metadata, self, B, variant->on, PJ_EPOLL_KEY, "B, nested");
}

struct raiser {
	FIXTURE_DATA(nest) *self;
	pid_t waiter;
	long nr;
	int on;
	int err;		/* 0, or what failed (negative errno) */
	const char *step;
};

/*
 * Once the waiter sleeps in the wait: flip the switch, raise A's event
 * and B's. SCHED_FIFO on the waiter's CPU: the woken waiter does not run
 * before this thread has raised both and ended.
 */
static void *raiser(void *arg)
{
	struct raiser *r = arg;
	int i;

	r->step = "seeing the waiter asleep in its wait";
	r->err = -ETIMEDOUT;
	for (i = 0; i < ASLEEP_MS * (int)vt_scale(); i++) {
		if (vt_asleep_in(r->waiter, r->nr))
			break;
		vp_sleep_ms(1);
	}
	if (!vt_asleep_in(r->waiter, r->nr))
		return NULL;
	r->step = "flipping the switch";
	r->err = vt_switch_set(!r->on);
	if (r->err)
		return NULL;
	r->step = "raising A's event";
	r->err = raise_event(r->self, A);
	if (r->err)
		return NULL;
	r->step = "raising B's event";
	r->err = raise_event(r->self, B);
	return NULL;
}

TEST_F(nest, flipped_while_it_sleeps)
{
	struct raiser rs = {
		.self = self, .waiter = gettid(), .nr = api_nr[variant->api],
		.on = variant->on,
	};
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t attr;
	cpu_set_t cpus;
	pthread_t t;
	bool ready[2];
	int r, i;

	/* the waiter and the raiser on one CPU, the raiser SCHED_FIFO */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus));
	ASSERT_EQ(0, pthread_attr_setinheritsched(&attr,
						  PTHREAD_EXPLICIT_SCHED));
	ASSERT_EQ(0, pthread_attr_setschedpolicy(&attr, SCHED_FIFO));
	ASSERT_EQ(0, pthread_attr_setschedparam(&attr, &sp));
	ASSERT_EQ(0, vt_switch_set(variant->on));
	for (i = A; i <= B; i++) {
		ASSERT_EQ(0, vp_polltrace_reset(&self->pt[i]));
	}
	ASSERT_EQ(0, pthread_create(&t, &attr, raiser, &rs));
	r = wait_call(self, variant->api, true, 5000 * vt_scale(), ready);
	pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
	vp_sysctl_write(0);
	ASSERT_EQ(0, rs.err) TH_LOG("raiser: %s: %s", rs.step,
				    strerror(-rs.err));
	ASSERT_LT(0, r) TH_LOG("the call returned %d (%s)", r,
			       r < 0 ? strerror(-r) : "nothing ready");
	ASSERT_TRUE(ready[A] && ready[B])
		TH_LOG("the call reported A %d, B %d: it returned before both events were raised",
		       ready[A], ready[B]);
	judge(_metadata, self, A, variant->on, a_key(variant->api),
	      "A, the call's own");
	judge(_metadata, self, B, !variant->on, PJ_EPOLL_KEY, "B, nested");
}

/*
 * The last test (the harness runs the global TESTs first, then each
 * fixture in the order they are defined): vivpoll as the guest boots it,
 * for the suites after this one.
 */
FIXTURE(last) {
	int unused;
};

FIXTURE_SETUP(last)
{
}

FIXTURE_TEARDOWN(last)
{
}

TEST_F(last, vivpoll_back_to_its_defaults)
{
	struct vt_dev devs[VT_MAX_DEVS];
	const char *why;

	ASSERT_EQ(0, vt_reload(NULL, 5000 * vt_scale(), &why)) TH_LOG("%s", why);
	EXPECT_EQ(1, vt_devices(devs, VT_MAX_DEVS));
	EXPECT_EQ(0, vp_sysctl_write(0));
}

TEST_HARNESS_MAIN
