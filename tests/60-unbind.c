// SPDX-License-Identifier: GPL-2.0
/*
 * Unbind/bind (sysfs) and rmmod/modprobe of vivpoll while its device is in
 * use: with a file open, while streaming, while a thread is blocked in
 * VIDIOC_DQBUF and while threads are blocked in select()/poll().
 *
 * Unbinding must wake every waiter (DQBUF returns an error; select() returns
 * the fd in exceptfds/readfds; poll() reports POLLERR|POLLHUP|POLLPRI),
 * later ioctls fail with ENODEV, and once everything is closed the rebound
 * device captures again. rmmod must be refused while any file is open (the
 * open file pins the module), must leave the users undisturbed, and must
 * succeed once they are gone. No oops/BUG/WARNING may appear in the log.
 * The harness runs each test in its own process with a timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "common.h"
#include "lib.h"

#define NBUF		3
#define WAKE_MS		(3000 * vt_scale())	/* a waiter returns this soon */

/* ---- helpers ------------------------------------------------------------ */

static int do_unbind(void)
{
	return vt_write_file(VT_DRV_DIR "/unbind", VT_PDEV);
}

static int do_bind(void)
{
	return vt_write_file(VT_DRV_DIR "/bind", VT_PDEV);
}

/* /dev/videoN of vivpoll.0, waiting up to 3 s for it to appear. */
static int find_dev(char *buf, size_t len)
{
	return vt_find_pdev_node(0, buf, len, 3000);
}

/* Capture two frames with read() on a fresh fd: the device works. */
static int short_capture(const char *dev)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct pollfd p;
	char *buf;
	int fd, i, r = 0;

	fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, VIDIOC_G_FMT, &fmt) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	buf = malloc(fmt.fmt.pix.sizeimage);
	for (i = 0; buf && i < 2 && !r; i++) {
		p.fd = fd;
		p.events = POLLIN;
		if (poll(&p, 1, WAKE_MS) != 1 || !(p.revents & POLLIN))
			r = -ETIMEDOUT;
		else if (read(fd, buf, fmt.fmt.pix.sizeimage) !=
			 (ssize_t)fmt.fmt.pix.sizeimage)
			r = -EIO;
	}
	if (!buf)
		r = -ENOMEM;
	free(buf);
	close(fd);
	return r;
}

/* The first kernel splat logged since vt_klog_mark(), or NULL. */
static char *splat_since_mark(char *out, size_t outlen)
{
	static const char *const bad[] = {
		"Oops", "BUG:", "WARNING:", "general protection",
	};
	char *log = vt_klog_since_mark(), *hit = NULL, *q;
	unsigned int i;

	if (!log)
		return NULL;
	for (i = 0; i < VT_ARRAY_SIZE(bad) && !hit; i++)
		hit = strstr(log, bad[i]);
	if (hit) {
		q = strchr(hit, '\n');
		snprintf(out, outlen, "%.*s", q ? (int)(q - hit) : 120, hit);
	}
	free(log);
	return hit ? out : NULL;
}

/* ---- streaming helpers ------------------------------------------------ */

struct stream {
	int fd;
	void *mem[NBUF];
	size_t len[NBUF];
	unsigned int n;
};

static int stream_start(struct stream *s, int fd, bool queue_all)
{
	struct v4l2_requestbuffers rb = {
		.count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	if (ioctl(fd, VIDIOC_REQBUFS, &rb) < 0)
		return -errno;
	s->n = rb.count < NBUF ? rb.count : NBUF;
	for (i = 0; i < s->n; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
		};

		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0)
			return -errno;
		s->len[i] = b.length;
		s->mem[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd,
				 b.m.offset);
		if (s->mem[i] == MAP_FAILED) {
			s->mem[i] = NULL;
			return -errno;
		}
		if ((queue_all || i == 0) && ioctl(fd, VIDIOC_QBUF, &b) < 0)
			return -errno;
	}
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0)
		return -errno;
	return 0;
}

static int dqbuf(int fd, struct v4l2_buffer *b)
{
	memset(b, 0, sizeof(*b));
	b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b->memory = V4L2_MEMORY_MMAP;
	return ioctl(fd, VIDIOC_DQBUF, b) < 0 ? -errno : 0;
}

/* Wait for and dequeue one buffer on a non-blocking fd. */
static int dq_one(int fd, struct v4l2_buffer *b)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, WAKE_MS) != 1)
		return -ETIMEDOUT;
	return dqbuf(fd, b);
}

static void stream_unmap(struct stream *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->mem[i])
			munmap(s->mem[i], s->len[i]);
	s->n = 0;
}

/* ---- waiter threads ----------------------------------------------------- */

enum waiter_kind { W_DQBUF, W_SELECT_EX, W_SELECT_RDEX, W_POLL_PRI };

struct waiter {
	pthread_t th;
	enum waiter_kind kind;
	int fd;
	volatile int done;
	int ret;	/* return value (or -errno) of the call */
	int err;
	bool in_rd, in_ex;
	short revents;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct timeval tv = { 20, 0 };
	struct v4l2_buffer b;
	struct pollfd p;
	fd_set rd, ex;

	switch (w->kind) {
	case W_DQBUF:
		w->ret = dqbuf(w->fd, &b);
		break;
	case W_SELECT_EX:
	case W_SELECT_RDEX:
		FD_ZERO(&rd);
		FD_ZERO(&ex);
		FD_SET(w->fd, &ex);
		if (w->kind == W_SELECT_RDEX)
			FD_SET(w->fd, &rd);
		w->ret = select(w->fd + 1, &rd, NULL, &ex, &tv);
		w->err = errno;
		w->in_rd = FD_ISSET(w->fd, &rd);
		w->in_ex = FD_ISSET(w->fd, &ex);
		break;
	case W_POLL_PRI:
		p.fd = w->fd;
		p.events = POLLPRI;
		w->ret = poll(&p, 1, 20000);
		w->err = errno;
		w->revents = p.revents;
		break;
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int waiter_start(struct waiter *w, enum waiter_kind kind, int fd)
{
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->fd = fd;
	return pthread_create(&w->th, NULL, waiter_main, w);
}

static bool waiter_done(struct waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/* Wait up to ms for the waiter to return; join it if it did. */
static bool waiter_wait(struct waiter *w, unsigned int ms)
{
	uint64_t end = vp_now_ns() + ms * 1000000ull;

	while (!waiter_done(w) && vp_now_ns() < end)
		vp_sleep_ms(5);
	if (!waiter_done(w))
		return false;
	pthread_join(w->th, NULL);
	return true;
}

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(vivpoll)
{
	char dev[64];
	int fd, fd2;
	struct stream s;
};

FIXTURE_SETUP(vivpoll)
{
	char name[80];

	self->fd = self->fd2 = -1;
	/* fresh counters, default parameters; a failure shows up below */
	if (vt_module_loaded() && vt_rmmod())
		TH_LOG("rmmod vivpoll: %s", strerror(errno));
	ASSERT_EQ(0, vt_modprobe(NULL));
	ASSERT_TRUE(vt_pdev_bound());
	ASSERT_EQ(0, find_dev(self->dev, sizeof(self->dev)));
	snprintf(name, sizeof(name), "60-unbind %s", _metadata->name);
	vt_klog_mark(name);
}

FIXTURE_TEARDOWN(vivpoll)
{
	char splat[160];

	stream_unmap(&self->s);
	if (self->fd >= 0)
		close(self->fd);
	if (self->fd2 >= 0)
		close(self->fd2);
	/* leave vivpoll loaded, bound, with default parameters */
	if (!vt_module_loaded())
		vt_modprobe(NULL);
	else if (!vt_pdev_bound())
		do_bind();
	EXPECT_FALSE(splat_since_mark(splat, sizeof(splat)))
		TH_LOG("kernel log: %s", splat);
}

/* After an unbind: the fd is dead but safe; then rebind and capture. */
static void check_dead_fd(struct __test_metadata *_metadata, int fd)
{
	struct v4l2_capability cap;
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI };

	EXPECT_EQ(-1, ioctl(fd, VIDIOC_QUERYCAP, &cap));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLERR);
	EXPECT_TRUE(p.revents & POLLHUP);
}

static void rebind_and_capture(struct __test_metadata *_metadata,
			       FIXTURE_DATA(vivpoll) *self)
{
	stream_unmap(&self->s);
	if (self->fd >= 0)
		close(self->fd);
	if (self->fd2 >= 0)
		close(self->fd2);
	self->fd = self->fd2 = -1;
	ASSERT_EQ(0, do_bind());
	ASSERT_EQ(0, find_dev(self->dev, sizeof(self->dev)));
	ASSERT_EQ(0, short_capture(self->dev)) {
		TH_LOG("the rebound device %s does not capture", self->dev);
	}
}

static void reload_and_capture(struct __test_metadata *_metadata,
			       FIXTURE_DATA(vivpoll) *self)
{
	stream_unmap(&self->s);
	if (self->fd >= 0)
		close(self->fd);
	if (self->fd2 >= 0)
		close(self->fd2);
	self->fd = self->fd2 = -1;
	ASSERT_EQ(0, vt_rmmod()) {
		TH_LOG("rmmod after the last close: %s", strerror(errno));
	}
	ASSERT_EQ(0, vt_modprobe(NULL));
	ASSERT_EQ(0, find_dev(self->dev, sizeof(self->dev)));
	ASSERT_EQ(0, short_capture(self->dev));
}

/* ---- unbind/bind -------------------------------------------------------- */

TEST_F_TIMEOUT(vivpoll, unbind_while_open, 120)
{
	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, do_unbind());
	ASSERT_FALSE(vt_pdev_bound());
	check_dead_fd(_metadata, self->fd);
	rebind_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, unbind_while_streaming, 120)
{
	struct v4l2_buffer b;

	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, stream_start(&self->s, self->fd, true));
	ASSERT_EQ(0, dq_one(self->fd, &b));
	ASSERT_EQ(0, ioctl(self->fd, VIDIOC_QBUF, &b));
	ASSERT_EQ(0, do_unbind());
	EXPECT_EQ(-ENODEV, dqbuf(self->fd, &b));
	check_dead_fd(_metadata, self->fd);
	rebind_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, unbind_while_blocked_in_dqbuf, 120)
{
	struct v4l2_buffer b;
	struct waiter w;

	self->fd = open(self->dev, O_RDWR);	/* blocking */
	ASSERT_LE(0, self->fd);
	/* one buffer queued, dequeued, not requeued: the next DQBUF blocks */
	ASSERT_EQ(0, stream_start(&self->s, self->fd, false));
	ASSERT_EQ(0, dqbuf(self->fd, &b));
	ASSERT_EQ(0, waiter_start(&w, W_DQBUF, self->fd));
	vp_sleep_ms(300);
	ASSERT_FALSE(waiter_done(&w));
	ASSERT_EQ(0, do_unbind());
	ASSERT_TRUE(waiter_wait(&w, WAKE_MS)) {
		TH_LOG("VIDIOC_DQBUF still blocked after the unbind");
	}
	EXPECT_NE(0, w.ret);
	TH_LOG("blocked DQBUF returned %d (%s)", w.ret, strerror(-w.ret));
	check_dead_fd(_metadata, self->fd);
	rebind_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, unbind_while_blocked_in_select, 120)
{
	struct waiter wex, wrdex, wpoll;
	struct v4l2_buffer b;

	/* fd: an event-only client, subscribed, idle */
	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, vp_subscribe(self->fd, V4L2_EVENT_CTRL,
				  V4L2_CID_BRIGHTNESS, 0));
	/* fd2: streaming, but starved (no buffer queued): POLLIN waits */
	self->fd2 = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd2);
	ASSERT_EQ(0, stream_start(&self->s, self->fd2, false));
	ASSERT_EQ(0, dq_one(self->fd2, &b));

	ASSERT_EQ(0, waiter_start(&wex, W_SELECT_EX, self->fd));
	ASSERT_EQ(0, waiter_start(&wpoll, W_POLL_PRI, self->fd));
	ASSERT_EQ(0, waiter_start(&wrdex, W_SELECT_RDEX, self->fd2));
	vp_sleep_ms(300);
	ASSERT_FALSE(waiter_done(&wex));
	ASSERT_FALSE(waiter_done(&wpoll));
	ASSERT_FALSE(waiter_done(&wrdex));
	ASSERT_EQ(0, do_unbind());

	ASSERT_TRUE(waiter_wait(&wex, WAKE_MS)) {
		TH_LOG("select(exceptfds) still blocked after the unbind");
	}
	EXPECT_EQ(1, wex.ret);
	EXPECT_TRUE(wex.in_ex);

	ASSERT_TRUE(waiter_wait(&wpoll, WAKE_MS)) {
		TH_LOG("poll(POLLPRI) still blocked after the unbind");
	}
	EXPECT_EQ(1, wpoll.ret);
	EXPECT_TRUE(wpoll.revents & POLLERR);
	EXPECT_TRUE(wpoll.revents & POLLHUP);
	EXPECT_TRUE(wpoll.revents & POLLPRI);

	ASSERT_TRUE(waiter_wait(&wrdex, WAKE_MS)) {
		TH_LOG("select(readfds, exceptfds) on a streaming fd still "
		       "blocked after the unbind");
	}
	EXPECT_LE(1, wrdex.ret);
	EXPECT_TRUE(wrdex.in_rd);
	EXPECT_TRUE(wrdex.in_ex);

	check_dead_fd(_metadata, self->fd);
	check_dead_fd(_metadata, self->fd2);
	rebind_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, bind_cycles, 120)
{
	int i;

	for (i = 0; i < 3 * (int)vt_scale(); i++) {
		ASSERT_EQ(0, do_unbind());
		ASSERT_EQ(0, do_bind());
		ASSERT_EQ(0, find_dev(self->dev, sizeof(self->dev)));
		ASSERT_EQ(0, short_capture(self->dev));
	}
}

/* ---- rmmod/modprobe ----------------------------------------------------- */

TEST_F_TIMEOUT(vivpoll, rmmod_while_open, 120)
{
	struct v4l2_capability cap;

	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-EWOULDBLOCK, vt_rmmod());
	EXPECT_TRUE(vt_module_loaded());
	EXPECT_EQ(0, ioctl(self->fd, VIDIOC_QUERYCAP, &cap));
	reload_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, rmmod_while_streaming, 120)
{
	struct v4l2_buffer b;
	int i;

	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, stream_start(&self->s, self->fd, true));
	ASSERT_EQ(0, dq_one(self->fd, &b));
	ASSERT_EQ(0, ioctl(self->fd, VIDIOC_QBUF, &b));
	EXPECT_EQ(-EWOULDBLOCK, vt_rmmod());
	/* streaming goes on undisturbed */
	for (i = 0; i < 3 * (int)vt_scale(); i++) {
		ASSERT_EQ(0, dq_one(self->fd, &b));
		ASSERT_EQ(0, ioctl(self->fd, VIDIOC_QBUF, &b));
	}
	reload_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, rmmod_while_blocked_in_dqbuf, 120)
{
	struct v4l2_buffer b;
	struct waiter w;

	self->fd = open(self->dev, O_RDWR);	/* blocking */
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, stream_start(&self->s, self->fd, false));
	ASSERT_EQ(0, dqbuf(self->fd, &b));
	ASSERT_EQ(0, waiter_start(&w, W_DQBUF, self->fd));
	vp_sleep_ms(300);
	ASSERT_FALSE(waiter_done(&w));
	EXPECT_EQ(-EWOULDBLOCK, vt_rmmod());
	vp_sleep_ms(100);
	EXPECT_FALSE(waiter_done(&w));
	/* a queued buffer still wakes it normally */
	ASSERT_EQ(0, ioctl(self->fd, VIDIOC_QBUF, &b));
	ASSERT_TRUE(waiter_wait(&w, WAKE_MS));
	EXPECT_EQ(0, w.ret);
	reload_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, rmmod_while_blocked_in_select, 120)
{
	struct waiter w;

	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, vp_subscribe(self->fd, V4L2_EVENT_CTRL,
				  V4L2_CID_BRIGHTNESS, 0));
	ASSERT_EQ(0, waiter_start(&w, W_SELECT_EX, self->fd));
	vp_sleep_ms(300);
	ASSERT_FALSE(waiter_done(&w));
	EXPECT_EQ(-EWOULDBLOCK, vt_rmmod());
	vp_sleep_ms(100);
	EXPECT_FALSE(waiter_done(&w));
	/* an event from another fd still wakes it normally */
	self->fd2 = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd2);
	ASSERT_EQ(0, vp_ctrl_set(self->fd2, V4L2_CID_BRIGHTNESS, 3));
	ASSERT_TRUE(waiter_wait(&w, WAKE_MS));
	EXPECT_EQ(1, w.ret);
	EXPECT_TRUE(w.in_ex);
	reload_and_capture(_metadata, self);
}

TEST_F_TIMEOUT(vivpoll, rmmod_after_unbind_with_file_open, 120)
{
	self->fd = open(self->dev, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, do_unbind());
	/* the device structure outlives the unbind: the module must too */
	EXPECT_EQ(-EWOULDBLOCK, vt_rmmod());
	check_dead_fd(_metadata, self->fd);
	reload_and_capture(_metadata, self);
}

TEST_HARNESS_MAIN
