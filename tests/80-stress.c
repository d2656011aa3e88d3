// SPDX-License-Identifier: GPL-2.0
/*
 * 80-stress: many processes use the vivpoll devices at once, in random
 * order, for a bounded time and a bounded number of operations each:
 * open, subscribe to events, wait on exceptfds (select, poll, epoll with a
 * timeout) and dequeue the events, stream by mmap and by USERPTR
 * (REQBUFS/QBUF/STREAMON/DQBUF/STREAMOFF), stream by read(), switch
 * formats (valid and invalid S_FMT/TRY_FMT), frame rates, inputs and
 * controls, close.
 *
 * Checks: no process dies from a signal or hangs; every failing call fails
 * with an errno that the V4L2 API allows in that situation (EBUSY for a
 * format change on a busy queue, EINVAL for bad arguments, EAGAIN on a
 * non-blocking fd...); what the driver returns is sane (formats, frame
 * intervals, events, buffers); a streaming queue delivers its frames; the
 * counter controls never go backwards. Then the checks of vt_health().
 *
 *   80-stress [--seed N] [--procs N] [--secs S] [--ops N]
 *
 * Defaults scale with VIVPOLL_SCALE: 8*scale processes, 15*scale seconds
 * (4 with VIVPOLL_TIER=quick), at most 4000*scale operations per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define MAX_FDS		3
#define MAX_BUFS	8
#define MAX_MSGS	6
#define MAX_FRAME	(1920 * 1080 * 4)

/* per child, in shared memory */
struct child {
	uint64_t ops, ioctls, opens, closes, subscribes, waits, events;
	uint64_t mmap_streams, userptr_streams, dqbufs, reads, read_bytes;
	uint64_t fmt_set, fmt_busy, ctrl_sets, busy, max_frame_wait_ms;
	uint64_t read_einval;
	uint64_t dq_inst[VT_MAX_DEVS];
	unsigned int unexpected, insane, stalls, nmsg;
	char cur[96];
	char msg[MAX_MSGS][200];
};

enum mode { M_IDLE, M_MMAP, M_USERPTR, M_READ };

struct fdst {
	int fd;
	bool nb;
	int dev;
	enum mode mode;
	bool streaming;
	unsigned int nbufs;
	void *mem[MAX_BUFS];
	size_t len[MAX_BUFS];
	bool queued[MAX_BUFS];
	uint32_t sizeimage;
	int64_t last_seq;
};

static struct child *me;
static struct vt_rng rng;
static struct vt_dev devs[VT_MAX_DEVS];
static int ndevs;
static struct fdst fds[MAX_FDS];
static int nfds;
static unsigned int frame_limit_ms;
static int64_t last_counter[VT_MAX_DEVS][3];
static uint8_t *readbuf;

static const uint32_t fourccs[] = {
	V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_UYVY, V4L2_PIX_FMT_RGB24,
	V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_XBGR32, V4L2_PIX_FMT_RGB565,
	V4L2_PIX_FMT_GREY,
};
static const unsigned int bpps[] = { 16, 16, 24, 24, 32, 16, 8 };
static const unsigned int sizes[][2] = {
	{ 320, 240 }, { 640, 480 }, { 1280, 720 }, { 1920, 1080 },
};
static const unsigned int fpss[] = { 60, 50, 30, 25, 15, 10, 5 };

/* ---- reporting ------------------------------------------------------------ */

static void note(unsigned int *counter, const char *fmt, ...)
{
	va_list ap;

	(*counter)++;
	if (me->nmsg >= MAX_MSGS)
		return;
	va_start(ap, fmt);
	vsnprintf(me->msg[me->nmsg++], sizeof(me->msg[0]), fmt, ap);
	va_end(ap);
}

#define unexpected(...)	note(&me->unexpected, __VA_ARGS__)
#define insane(...)	note(&me->insane, __VA_ARGS__)

static void doing(const char *what, const struct fdst *f)
{
	snprintf(me->cur, sizeof(me->cur), "%s on fd %d (%s%s)", what,
		 f ? f->fd : -1, f ? devs[f->dev].path : "-",
		 f && f->nb ? ", O_NONBLOCK" : "");
}

/*
 * ioctl() that must either succeed or fail with one of the errnos in
 * allowed (VT_E() bits). Returns 0 (or the ioctl's value) or -errno.
 */
static int xio(struct fdst *f, unsigned long req, void *arg,
	       const char *name, uint64_t allowed)
{
	int r;

	me->ioctls++;
	doing(name, f);
	r = ioctl(f->fd, req, arg);
	if (r >= 0)
		return r;
	r = errno;
	if (r == EBUSY)
		me->busy++;
	if (!vt_errno_in(r, allowed))
		unexpected("%s on %s%s: %s", name, devs[f->dev].path,
			   f->nb ? " (O_NONBLOCK)" : "", vt_errname(r));
	return -r;
}

static int fmt_index(uint32_t fourcc)
{
	unsigned int i;

	for (i = 0; i < VT_ARRAY_SIZE(fourccs); i++)
		if (fourccs[i] == fourcc)
			return (int)i;
	return -1;
}

/* The format the driver returned is one it supports, consistently. */
static bool fmt_sane(const struct v4l2_pix_format *p)
{
	int i = fmt_index(p->pixelformat);
	unsigned int s;
	bool size_ok = false;

	for (s = 0; s < VT_ARRAY_SIZE(sizes); s++)
		if (p->width == sizes[s][0] && p->height == sizes[s][1])
			size_ok = true;
	return i >= 0 && size_ok && p->field == V4L2_FIELD_NONE &&
	       p->bytesperline == p->width * bpps[i] / 8 &&
	       p->sizeimage == p->bytesperline * p->height;
}

/* ---- buffers -------------------------------------------------------------- */

static void release_mem(struct fdst *f)
{
	unsigned int i;

	for (i = 0; i < f->nbufs; i++)
		if (f->mem[i])
			munmap(f->mem[i], f->len[i]);
	memset(f->mem, 0, sizeof(f->mem));
	memset(f->queued, 0, sizeof(f->queued));
	f->nbufs = 0;
}

static void fd_close(int i)
{
	struct fdst *f = &fds[i];

	doing("close", f);
	/* unmap before or after the close: both must be fine */
	if (vt_one_in(&rng, 2)) {
		release_mem(f);
		close(f->fd);
	} else {
		close(f->fd);
		release_mem(f);
	}
	me->closes++;
	fds[i] = fds[--nfds];
}

static void op_open(void)
{
	struct fdst *f;
	int dev = (int)vt_below(&rng, ndevs);
	bool nb = vt_one_in(&rng, 2);
	int fd;

	if (nfds >= MAX_FDS)
		return;
	doing("open", NULL);
	fd = open(devs[dev].path, O_RDWR | O_CLOEXEC | (nb ? O_NONBLOCK : 0));
	if (fd < 0) {
		unexpected("open %s: %s", devs[dev].path, vt_errname(errno));
		return;
	}
	f = &fds[nfds++];
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->nb = nb;
	f->dev = dev;
	f->last_seq = -1;
	me->opens++;
}

/* ---- events -------------------------------------------------------------- */

static void op_subscribe(struct fdst *f)
{
	static const uint32_t ctrl_ids[] = {
		V4L2_CID_BRIGHTNESS, V4L2_CID_CONTRAST, V4L2_CID_SATURATION,
		V4L2_CID_HUE, V4L2_CID_TEST_PATTERN, VIVPOLL_CID_CAM2_SIGNAL,
		VIVPOLL_CID_ENGINE_RUNNING, VIVPOLL_CID_FRAMES,
	};
	struct v4l2_event_subscription sub;
	bool invalid = false;

	memset(&sub, 0, sizeof(sub));
	switch (vt_below(&rng, 7)) {
	case 0:
	case 1:
		sub.type = V4L2_EVENT_CTRL;
		sub.id = ctrl_ids[vt_below(&rng, VT_ARRAY_SIZE(ctrl_ids))];
		if (vt_one_in(&rng, 8)) {
			sub.id = V4L2_CID_USER_BASE + 0x777;
			invalid = true;
		}
		break;
	case 2:
		sub.type = V4L2_EVENT_SOURCE_CHANGE;
		sub.id = vt_below(&rng, 2);
		break;
	case 3:
		sub.type = V4L2_EVENT_EOS;	/* vivpoll raises none */
		invalid = true;
		break;
	case 4:
		sub.type = V4L2_EVENT_FRAME_SYNC;
		break;
	case 5:
		sub.type = V4L2_EVENT_MOTION_DET + 0x100;	/* unknown */
		invalid = true;
		break;
	case 6:
		sub.type = vt_one_in(&rng, 2) ? V4L2_EVENT_ALL :
			   V4L2_EVENT_CTRL;
		sub.id = V4L2_CID_BRIGHTNESS;
		xio(f, VIDIOC_UNSUBSCRIBE_EVENT, &sub, "UNSUBSCRIBE_EVENT", 0);
		return;
	}
	sub.flags = vt_below(&rng, 4);	/* SEND_INITIAL, ALLOW_FEEDBACK */
	me->subscribes++;
	if (!xio(f, VIDIOC_SUBSCRIBE_EVENT, &sub, "SUBSCRIBE_EVENT",
		 invalid ? VT_E(EINVAL) : 0) && invalid)
		insane("SUBSCRIBE_EVENT type 0x%x id 0x%x accepted",
		       sub.type, sub.id);
}

static void dq_events(struct fdst *f)
{
	int i;

	/* poll said POLLPRI: one event is pending; take the rest if
	 * non-blocking (ENOENT ends it) */
	for (i = 0; i < (f->nb ? 16 : 1); i++) {
		struct v4l2_event ev;
		int r;

		memset(&ev, 0, sizeof(ev));
		r = xio(f, VIDIOC_DQEVENT, &ev, "DQEVENT",
			i ? VT_E(ENOENT) : 0);
		if (r < 0)
			break;
		me->events++;
		if (ev.type != V4L2_EVENT_CTRL &&
		    ev.type != V4L2_EVENT_SOURCE_CHANGE &&
		    ev.type != V4L2_EVENT_FRAME_SYNC)
			insane("DQEVENT returned event type 0x%x", ev.type);
		if (ev.type == V4L2_EVENT_SOURCE_CHANGE && ev.id > 1)
			insane("source change event for input %u", ev.id);
	}
}

/* Wait for events (and sometimes frames) on one or all fds, then dequeue. */
static void op_wait(void)
{
	struct pollfd p[MAX_FDS];
	int idx[MAX_FDS] = { 0 }, n = 0, i, r, api = (int)vt_below(&rng, 4);
	bool want_in = vt_one_in(&rng, 8);
	int ms = (int)vt_below(&rng, 31);
	short events = POLLPRI | (want_in ? POLLIN : 0);

	if (!nfds)
		return;
	if (vt_one_in(&rng, 2)) {
		idx[n++] = (int)vt_below(&rng, nfds);
	} else {
		for (i = 0; i < nfds; i++)
			idx[n++] = i;
	}
	for (i = 0; i < n; i++) {
		p[i].fd = fds[idx[i]].fd;
		p[i].events = events;
		p[i].revents = 0;
	}
	me->waits++;
	doing(api == 0 ? "select" : api == 1 ? "poll" : api == 2 ?
	      "epoll_wait" : "pselect", &fds[idx[0]]);
	if (api == 1) {
		r = poll(p, n, ms);
	} else if (api == 2) {
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev[MAX_FDS];

		for (i = 0; i < n; i++) {
			struct epoll_event e = {
				.events = (want_in ? EPOLLIN : 0) | EPOLLPRI,
				.data.u32 = i,
			};

			epoll_ctl(ep, EPOLL_CTL_ADD, p[i].fd, &e);
		}
		r = epoll_wait(ep, ev, n, ms);
		for (i = 0; i < r; i++)
			p[ev[i].data.u32].revents = ev[i].events;
		close(ep);
	} else {
		fd_set rd, ex;
		struct timeval tv = { 0, ms * 1000 };
		struct timespec ts = { 0, ms * 1000000L };
		int maxfd = 0;

		FD_ZERO(&rd);
		FD_ZERO(&ex);
		for (i = 0; i < n; i++) {
			FD_SET(p[i].fd, &ex);
			if (want_in)
				FD_SET(p[i].fd, &rd);
			if (p[i].fd > maxfd)
				maxfd = p[i].fd;
		}
		r = api == 0 ? select(maxfd + 1, &rd, NULL, &ex, &tv) :
			pselect(maxfd + 1, &rd, NULL, &ex, &ts, NULL);
		for (i = 0; r > 0 && i < n; i++)
			p[i].revents = (FD_ISSET(p[i].fd, &ex) ? POLLPRI : 0) |
				       (FD_ISSET(p[i].fd, &rd) ? POLLIN : 0);
	}
	if (r < 0) {
		unexpected("wait (api %d): %s", api, vt_errname(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		struct fdst *f = &fds[idx[i]];

		if (p[i].revents & (POLLNVAL | POLLHUP))
			insane("wait: revents 0x%x on a live fd", p[i].revents);
		if (p[i].revents & POLLPRI)
			dq_events(f);
	}
}

/* ---- streaming ------------------------------------------------------------ */

static uint32_t cur_sizeimage(struct fdst *f)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };

	if (xio(f, VIDIOC_G_FMT, &fmt, "G_FMT", 0))
		return 0;
	if (!fmt_sane(&fmt.fmt.pix))
		insane("G_FMT: %ux%u fourcc 0x%08x bpl %u size %u",
		       fmt.fmt.pix.width, fmt.fmt.pix.height,
		       fmt.fmt.pix.pixelformat, fmt.fmt.pix.bytesperline,
		       fmt.fmt.pix.sizeimage);
	return fmt.fmt.pix.sizeimage;
}

static int qbuf(struct fdst *f, unsigned int i)
{
	struct v4l2_buffer b = {
		.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
	};

	if (f->mode == M_USERPTR) {
		b.memory = V4L2_MEMORY_USERPTR;
		b.m.userptr = (unsigned long)f->mem[i];
		b.length = f->len[i];
	} else {
		b.memory = V4L2_MEMORY_MMAP;
	}
	if (xio(f, VIDIOC_QBUF, &b, "QBUF", 0))
		return -1;
	f->queued[i] = true;
	return 0;
}

/* Wait for a frame on a streaming fd (some queued), dequeue it, check it. */
static int dq_one(struct fdst *f, bool requeue)
{
	struct v4l2_buffer b;
	uint64_t t0 = vp_now_ns(), waited;
	int r;

	if (f->nb || vt_one_in(&rng, 2)) {
		struct pollfd p = { .fd = f->fd, .events = POLLIN };

		doing("poll(POLLIN) for a frame", f);
		r = poll(&p, 1, frame_limit_ms);
		if (r == 0) {
			me->stalls++;
			unexpected("no frame within %u ms on %s (%s)",
				   frame_limit_ms, devs[f->dev].path,
				   f->mode == M_MMAP ? "mmap" : "userptr");
			return -1;
		}
		if (p.revents & POLLERR) {
			insane("poll(POLLIN) on a streaming fd: POLLERR");
			return -1;
		}
	}
	memset(&b, 0, sizeof(b));
	b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b.memory = f->mode == M_USERPTR ? V4L2_MEMORY_USERPTR :
		   V4L2_MEMORY_MMAP;
	r = xio(f, VIDIOC_DQBUF, &b, "DQBUF", 0);
	waited = (vp_now_ns() - t0) / 1000000;
	if (waited > me->max_frame_wait_ms)
		me->max_frame_wait_ms = waited;
	if (r)
		return -1;
	me->dqbufs++;
	me->dq_inst[devs[f->dev].inst & (VT_MAX_DEVS - 1)]++;
	if (b.index >= f->nbufs || !f->queued[b.index]) {
		insane("DQBUF returned buffer %u, not queued", b.index);
		return -1;
	}
	f->queued[b.index] = false;
	if (b.flags & V4L2_BUF_FLAG_ERROR)
		insane("DQBUF: buffer %u has the ERROR flag", b.index);
	if (b.bytesused != f->sizeimage)
		insane("DQBUF: bytesused %u, sizeimage %u", b.bytesused,
		       f->sizeimage);
	if ((int64_t)b.sequence <= f->last_seq)
		insane("DQBUF: sequence %u after %" PRId64, b.sequence,
		       f->last_seq);
	f->last_seq = b.sequence;
	/* the buffer memory is there (a SIGBUS/SIGSEGV kills the child) */
	if (f->mem[b.index] && b.bytesused) {
		volatile uint8_t *m = f->mem[b.index];

		(void)m[0];
		(void)m[b.bytesused - 1];
	}
	if (requeue)
		qbuf(f, b.index);
	return 0;
}

static unsigned int nqueued(struct fdst *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nbufs; i++)
		n += f->queued[i];
	return n;
}

static void dq_some(struct fdst *f, unsigned int k)
{
	while (k--) {
		if (!nqueued(f)) {
			unsigned int i = vt_below(&rng, f->nbufs);

			if (qbuf(f, i))
				return;
		}
		if (dq_one(f, !vt_one_in(&rng, 4)))
			return;
	}
}

static void op_stream(struct fdst *f, bool userptr)
{
	unsigned int count = 1 + vt_below(&rng, 6), i;
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers rb = {
		.count = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = userptr ? V4L2_MEMORY_USERPTR : V4L2_MEMORY_MMAP,
	};

	if (f->mode != M_IDLE)
		return;
	f->sizeimage = cur_sizeimage(f);
	if (!f->sizeimage)
		return;
	/* another fd may own the queue, or this one reads */
	if (xio(f, VIDIOC_REQBUFS, &rb, "REQBUFS", VT_E(EBUSY)))
		return;
	/* another process may have changed it before REQBUFS; from now on
	 * the queue is busy and the format cannot change */
	f->sizeimage = cur_sizeimage(f);
	if (rb.count < 2 || rb.count > MAX_BUFS || rb.count < count)
		insane("REQBUFS %u gave %u buffers", count, rb.count);
	f->mode = userptr ? M_USERPTR : M_MMAP;
	f->nbufs = rb.count < MAX_BUFS ? rb.count : MAX_BUFS;
	f->last_seq = -1;
	for (i = 0; i < f->nbufs; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = rb.memory,
		};

		if (xio(f, VIDIOC_QUERYBUF, &b, "QUERYBUF", 0))
			return;
		if (userptr) {
			f->len[i] = (f->sizeimage + 4095) & ~4095u;
			f->mem[i] = mmap(NULL, f->len[i],
					 PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		} else {
			if (b.length < f->sizeimage)
				insane("QUERYBUF: length %u < sizeimage %u",
				       b.length, f->sizeimage);
			f->len[i] = b.length;
			f->mem[i] = mmap(NULL, b.length, PROT_READ,
					 MAP_SHARED, f->fd, b.m.offset);
		}
		if (f->mem[i] == MAP_FAILED) {
			f->mem[i] = NULL;
			unexpected("mmap buffer %u: %s", i, vt_errname(errno));
			return;
		}
		if (vt_below(&rng, 4) && qbuf(f, i))
			return;
	}
	if (xio(f, VIDIOC_STREAMON, &type, "STREAMON", 0))
		return;
	f->streaming = true;
	if (userptr)
		me->userptr_streams++;
	else
		me->mmap_streams++;
	dq_some(f, 1 + vt_below(&rng, 5));
}

/* STREAMOFF and REQBUFS 0 */
static void op_release(struct fdst *f)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = f->mode == M_USERPTR ? V4L2_MEMORY_USERPTR :
			  V4L2_MEMORY_MMAP,
	};

	if (f->streaming &&
	    !xio(f, VIDIOC_STREAMOFF, &type, "STREAMOFF", 0))
		f->streaming = false;
	if (!f->streaming && !xio(f, VIDIOC_REQBUFS, &rb, "REQBUFS 0", 0)) {
		release_mem(f);
		f->mode = M_IDLE;
	}
}

/* A step on a fd that streams by mmap/USERPTR */
static void op_stream_step(struct fdst *f)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = f->mode == M_USERPTR ? V4L2_MEMORY_USERPTR :
			  V4L2_MEMORY_MMAP,
	};
	unsigned int i;

	switch (vt_below(&rng, 6)) {
	case 0:
	case 1:
		if (f->streaming)
			dq_some(f, 1 + vt_below(&rng, 3));
		break;
	case 2:		/* STREAMOFF, or STREAMON again */
		if (f->streaming) {
			if (!xio(f, VIDIOC_STREAMOFF, &type, "STREAMOFF", 0)) {
				f->streaming = false;
				memset(f->queued, 0, sizeof(f->queued));
			}
		} else if (!xio(f, VIDIOC_STREAMON, &type, "STREAMON", 0)) {
			f->streaming = true;
			f->last_seq = -1;
		}
		break;
	case 3:		/* queue an already queued buffer */
		for (i = 0; i < f->nbufs; i++) {
			struct v4l2_buffer b = {
				.index = i,
				.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				.memory = rb.memory,
			};

			if (!f->queued[i])
				continue;
			if (f->mode == M_USERPTR) {
				b.m.userptr = (unsigned long)f->mem[i];
				b.length = f->len[i];
			}
			if (!xio(f, VIDIOC_QBUF, &b, "QBUF (queued)",
				 VT_E(EINVAL)))
				insane("QBUF of queued buffer %u succeeded",
				       i);
			break;
		}
		break;
	case 4:		/* non-blocking DQBUF, nothing may be ready */
		if (f->nb && f->streaming && nqueued(f)) {
			struct v4l2_buffer b = {
				.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				.memory = rb.memory,
			};

			if (!xio(f, VIDIOC_DQBUF, &b, "DQBUF (nb)",
				 VT_E(EAGAIN))) {
				if (b.index < f->nbufs && f->queued[b.index]) {
					f->queued[b.index] = false;
					me->dqbufs++;
					me->dq_inst[devs[f->dev].inst &
						    (VT_MAX_DEVS - 1)]++;
					qbuf(f, b.index);
				} else {
					insane("DQBUF returned buffer %u",
					       b.index);
				}
			}
		}
		break;
	case 5:		/* give the buffers back */
		op_release(f);
		break;
	}
}

static void op_read(struct fdst *f)
{
	uint32_t size = cur_sizeimage(f), want;
	uint64_t t0;
	ssize_t n;

	if (!size || (f->mode != M_IDLE && f->mode != M_READ))
		return;
	want = vt_one_in(&rng, 2) ? size : 1 + vt_below(&rng, size);
	if (f->nb) {
		/* poll for POLLIN starts the read() emulator on an idle queue */
		struct pollfd p = { .fd = f->fd, .events = POLLIN };

		doing("poll(POLLIN) before read()", f);
		if (poll(&p, 1, frame_limit_ms) == 0 && f->mode == M_READ) {
			me->stalls++;
			unexpected("read(): no frame within %u ms on %s",
				   frame_limit_ms, devs[f->dev].path);
			return;
		}
	}
	doing("read", f);
	t0 = vp_now_ns();
	n = read(f->fd, readbuf, want);
	if ((vp_now_ns() - t0) / 1000000 > frame_limit_ms) {
		me->stalls++;
		unexpected("read() took %" PRIu64 " ms",
			   (vp_now_ns() - t0) / 1000000);
	}
	if (n < 0) {
		int e = errno;

		if (e == EBUSY)
			me->busy++;
		/*
		 * EBUSY: another fd owns the queue, or this one did REQBUFS.
		 * EINVAL, blocking only: while this read() waited for its
		 * first frame, another fd's read() failed with EBUSY but took
		 * the queue over anyway (vb2_fop_read() sets q->owner even on
		 * failure), then closed, which stopped this stream.
		 */
		if (e == EINVAL && !f->nb)
			me->read_einval++;
		if (!vt_errno_in(e, VT_E(EBUSY) |
				 (f->nb ? VT_E(EAGAIN) : VT_E(EINVAL))))
			unexpected("read on %s%s: %s", devs[f->dev].path,
				   f->nb ? " (O_NONBLOCK)" : "",
				   vt_errname(e));
		return;
	}
	if (n == 0 || (size_t)n > want)
		insane("read(%u) returned %zd", want, n);
	f->mode = M_READ;
	me->reads++;
	me->read_bytes += n;
}

/* ---- formats, controls, inputs --------------------------------------------- */

static uint32_t rand_dim(void)
{
	static const uint32_t odd[] = {
		0, 1, 2, 319, 321, 479, 641, 1279, 1919, 1921, 4096, 65535,
		0x7fffffff, 0x80000000, 0xffffffff,
	};

	if (vt_one_in(&rng, 3))
		return vt_rand32(&rng);
	return odd[vt_below(&rng, VT_ARRAY_SIZE(odd))];
}

static void op_fmt(struct fdst *f)
{
	static const uint32_t bad_types[] = {
		0, V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_BUF_TYPE_VBI_CAPTURE,
		V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, V4L2_BUF_TYPE_META_CAPTURE,
		0x7f,
	};
	struct v4l2_format fmt;
	bool valid = vt_below(&rng, 100) < 85, try = vt_one_in(&rng, 3);
	bool bad_type = vt_one_in(&rng, 20);
	unsigned int fi = vt_below(&rng, VT_ARRAY_SIZE(fourccs));
	/* mostly small frames: filling 1920x1080 takes long under TCG */
	unsigned int si = vt_one_in(&rng, 8) ? 2 + vt_below(&rng, 2) :
			  vt_below(&rng, 2);
	uint64_t allowed = bad_type ? VT_E(EINVAL) : try ? 0 : VT_E(EBUSY);
	int r;

	memset(&fmt, 0, sizeof(fmt));
	fmt.type = bad_type ? bad_types[vt_below(&rng, VT_ARRAY_SIZE(bad_types))]
			    : V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (valid) {
		fmt.fmt.pix.pixelformat = fourccs[fi];
		fmt.fmt.pix.width = sizes[si][0];
		fmt.fmt.pix.height = sizes[si][1];
	} else {
		fmt.fmt.pix.pixelformat = vt_one_in(&rng, 2) ?
			fourccs[fi] : vt_rand32(&rng);
		fmt.fmt.pix.width = rand_dim();
		fmt.fmt.pix.height = rand_dim();
		fmt.fmt.pix.field = vt_below(&rng, 12);
		fmt.fmt.pix.bytesperline = vt_rand32(&rng);
		fmt.fmt.pix.sizeimage = vt_rand32(&rng);
		fmt.fmt.pix.colorspace = vt_below(&rng, 16);
	}
	r = xio(f, try ? VIDIOC_TRY_FMT : VIDIOC_S_FMT, &fmt,
		try ? "TRY_FMT" : "S_FMT", allowed);
	if (r == -EBUSY)
		me->fmt_busy++;
	if (r)
		return;
	if (bad_type) {
		insane("%s with buffer type %u succeeded",
		       try ? "TRY_FMT" : "S_FMT", fmt.type);
		return;
	}
	if (!try)
		me->fmt_set++;
	if (!fmt_sane(&fmt.fmt.pix))
		insane("%s returned %ux%u fourcc 0x%08x bpl %u size %u",
		       try ? "TRY_FMT" : "S_FMT", fmt.fmt.pix.width,
		       fmt.fmt.pix.height, fmt.fmt.pix.pixelformat,
		       fmt.fmt.pix.bytesperline, fmt.fmt.pix.sizeimage);
	else if (valid && (fmt.fmt.pix.pixelformat != fourccs[fi] ||
			   fmt.fmt.pix.width != sizes[si][0] ||
			   fmt.fmt.pix.height != sizes[si][1]))
		insane("%s of a supported format changed it",
		       try ? "TRY_FMT" : "S_FMT");
}

static void op_parm(struct fdst *f)
{
	struct v4l2_streamparm parm;
	bool bad_type = vt_one_in(&rng, 20), ok = false;
	unsigned int i;

	memset(&parm, 0, sizeof(parm));
	parm.type = bad_type ? V4L2_BUF_TYPE_VIDEO_OUTPUT :
		    V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (vt_one_in(&rng, 3)) {
		parm.parm.capture.timeperframe.numerator = vt_rand32(&rng) %
							   (vt_one_in(&rng, 2) ? 3 : UINT32_MAX);
		parm.parm.capture.timeperframe.denominator = vt_rand32(&rng);
	} else {
		parm.parm.capture.timeperframe.numerator = 1;
		parm.parm.capture.timeperframe.denominator =
			fpss[vt_below(&rng, VT_ARRAY_SIZE(fpss))];
	}
	if (xio(f, vt_one_in(&rng, 4) ? VIDIOC_G_PARM : VIDIOC_S_PARM, &parm,
		"S/G_PARM", bad_type ? VT_E(EINVAL) : 0))
		return;
	for (i = 0; i < VT_ARRAY_SIZE(fpss); i++)
		if (parm.parm.capture.timeperframe.numerator == 1 &&
		    parm.parm.capture.timeperframe.denominator == fpss[i])
			ok = true;
	if (bad_type || !ok)
		insane("S/G_PARM (type %u) returned %u/%u s", parm.type,
		       parm.parm.capture.timeperframe.numerator,
		       parm.parm.capture.timeperframe.denominator);
}

static void check_counters(struct fdst *f)
{
	static const uint32_t ids[3] = {
		VIVPOLL_CID_ENGINE_STARTS, VIVPOLL_CID_FRAMES, VIVPOLL_CID_DROPS,
	};
	struct v4l2_ext_control c[3];
	struct v4l2_ext_controls cs;
	int inst = devs[f->dev].inst & (VT_MAX_DEVS - 1), i;

	memset(c, 0, sizeof(c));
	memset(&cs, 0, sizeof(cs));
	for (i = 0; i < 3; i++)
		c[i].id = ids[i];
	cs.which = V4L2_CTRL_WHICH_CUR_VAL;
	cs.count = 3;
	cs.controls = c;
	if (xio(f, VIDIOC_G_EXT_CTRLS, &cs, "G_EXT_CTRLS (counters)", 0))
		return;
	for (i = 0; i < 3; i++) {
		if (c[i].value64 < last_counter[inst][i])
			insane("counter control 0x%x went from %" PRId64
			       " to %" PRId64, ids[i], last_counter[inst][i],
			       (int64_t)c[i].value64);
		last_counter[inst][i] = c[i].value64;
	}
}

static void op_ctrl(struct fdst *f)
{
	static const struct {
		uint32_t id;
		int32_t min, max;
		bool ro, menu, wo;
	} ctrls[] = {
		{ .id = V4L2_CID_BRIGHTNESS, .min = 0, .max = 255 },
		{ .id = V4L2_CID_CONTRAST, .min = 0, .max = 255 },
		{ .id = V4L2_CID_SATURATION, .min = 0, .max = 255 },
		{ .id = V4L2_CID_HUE, .min = -128, .max = 128 },
		/* TPG_PAT_NOISE is the last of the 22 patterns */
		{ .id = V4L2_CID_TEST_PATTERN, .min = 0, .max = 21,
		  .menu = true },
		{ .id = VIVPOLL_CID_CAM2_SIGNAL, .min = 0, .max = 1 },
		{ .id = VIVPOLL_CID_ENGINE_RUNNING, .min = 0, .max = 1,
		  .ro = true },
	};
	unsigned int k = vt_below(&rng, VT_ARRAY_SIZE(ctrls) + 2);
	struct v4l2_control c = { 0 };
	uint64_t allowed;
	bool in_range;

	if (k == VT_ARRAY_SIZE(ctrls)) {
		check_counters(f);
		return;
	}
	if (k > VT_ARRAY_SIZE(ctrls)) {		/* unknown control */
		c.id = V4L2_CID_USER_BASE + 0x7000 + vt_below(&rng, 16);
		if (!xio(f, vt_one_in(&rng, 2) ? VIDIOC_S_CTRL : VIDIOC_G_CTRL,
			 &c, "S/G_CTRL (unknown id)", VT_E(EINVAL)))
			insane("S/G_CTRL of unknown control 0x%x worked", c.id);
		return;
	}
	c.id = ctrls[k].id;
	if (vt_one_in(&rng, 4)) {
		/* a button is write-only */
		if (xio(f, VIDIOC_G_CTRL, &c, "G_CTRL",
			ctrls[k].wo ? VT_E(EACCES) : 0))
			return;
		if (ctrls[k].wo)
			insane("G_CTRL of button 0x%x worked", c.id);
		else if (c.value < ctrls[k].min || c.value > ctrls[k].max)
			insane("G_CTRL 0x%x = %d, out of range", c.id, c.value);
		return;
	}
	c.value = vt_one_in(&rng, 4) ? (int32_t)vt_rand32(&rng) :
		  ctrls[k].min + (int32_t)vt_below(&rng, ctrls[k].max -
						      ctrls[k].min + 1);
	in_range = c.value >= ctrls[k].min && c.value <= ctrls[k].max;
	/* integers are clamped; a menu index out of range is refused;
	 * menu entries may be skipped (EINVAL); read-only: EACCES */
	allowed = ctrls[k].ro ? VT_E(EACCES) | VT_E(EINVAL) :
		  ctrls[k].menu ? VT_E(EINVAL) | VT_E(ERANGE) : 0;
	if (ctrls[k].menu && in_range)
		allowed = VT_E(EINVAL);
	me->ctrl_sets++;
	if (!xio(f, VIDIOC_S_CTRL, &c, "S_CTRL", allowed) && ctrls[k].ro)
		insane("S_CTRL of read-only control 0x%x worked", c.id);
}

static void op_input(struct fdst *f)
{
	unsigned int i = vt_one_in(&rng, 6) ? 2 + vt_below(&rng, 100) :
			 vt_below(&rng, 2);
	struct v4l2_input inp = { .index = i };
	bool set = vt_one_in(&rng, 2);

	if (set) {
		if (!xio(f, VIDIOC_S_INPUT, &i, "S_INPUT",
			 VT_E(EBUSY) | (i > 1 ? VT_E(EINVAL) : 0)) && i > 1)
			insane("S_INPUT %u worked", i);
		return;
	}
	if (!xio(f, VIDIOC_ENUMINPUT, &inp, "ENUMINPUT",
		 i > 1 ? VT_E(EINVAL) : 0) && i > 1)
		insane("ENUMINPUT %u worked", i);
	if (!xio(f, VIDIOC_G_INPUT, &i, "G_INPUT", 0) && i > 1)
		insane("G_INPUT = %u", i);
}

static void op_info(struct fdst *f)
{
	struct v4l2_capability cap;
	struct v4l2_fmtdesc fd;
	struct v4l2_frmsizeenum fs;

	switch (vt_below(&rng, 4)) {
	case 0:
		memset(&cap, 0, sizeof(cap));
		if (!xio(f, VIDIOC_QUERYCAP, &cap, "QUERYCAP", 0) &&
		    strcmp((char *)cap.driver, "vivpoll"))
			insane("QUERYCAP driver \"%.16s\"", cap.driver);
		break;
	case 1:
		memset(&fd, 0, sizeof(fd));
		fd.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		fd.index = vt_below(&rng, 9);
		if (!xio(f, VIDIOC_ENUM_FMT, &fd, "ENUM_FMT",
			 fd.index >= 7 ? VT_E(EINVAL) : 0) &&
		    (fd.index >= 7 || fd.pixelformat != fourccs[fd.index]))
			insane("ENUM_FMT %u = 0x%08x", fd.index,
			       fd.pixelformat);
		break;
	case 2:
		memset(&fs, 0, sizeof(fs));
		fs.index = vt_below(&rng, 5);
		fs.pixel_format = fourccs[vt_below(&rng, 7)];
		xio(f, VIDIOC_ENUM_FRAMESIZES, &fs, "ENUM_FRAMESIZES",
		    fs.index >= 4 ? VT_E(EINVAL) : 0);
		break;
	case 3:
		if (vt_one_in(&rng, 25))
			xio(f, VIDIOC_LOG_STATUS, NULL, "LOG_STATUS", 0);
		else
			cur_sizeimage(f);
		break;
	}
}

/* ---- the child ------------------------------------------------------------ */

static void child_main(uint64_t seed, uint64_t deadline, uint64_t max_ops)
{
	rng.s = seed;
	readbuf = malloc(MAX_FRAME);
	if (!readbuf)
		_exit(3);
	while (me->ops < max_ops && vp_now_ns() < deadline) {
		unsigned int w = vt_below(&rng, 100);
		struct fdst *f;

		me->ops++;
		if (!nfds || (w < 6 && nfds < MAX_FDS)) {
			op_open();
			continue;
		}
		f = &fds[vt_below(&rng, nfds)];
		/* an owner of the queue lets go now and then */
		if (f->mode != M_IDLE && vt_one_in(&rng, 6)) {
			if (f->mode == M_READ || vt_one_in(&rng, 3))
				fd_close((int)(f - fds));
			else
				op_release(f);
			continue;
		}
		if (w < 10)
			fd_close((int)(f - fds));
		else if (w < 18)
			op_subscribe(f);
		else if (w < 32)
			op_wait();
		else if (w < 44 && (f->mode == M_MMAP || f->mode == M_USERPTR))
			op_stream_step(f);
		else if (w < 50)
			op_stream(f, vt_one_in(&rng, 3));
		else if (w < 58)
			op_read(f);
		else if (w < 70)
			op_fmt(f);
		else if (w < 75)
			op_parm(f);
		else if (w < 88)
			op_ctrl(f);
		else if (w < 93)
			op_input(f);
		else
			op_info(f);
	}
	while (nfds)
		fd_close(nfds - 1);
	snprintf(me->cur, sizeof(me->cur), "done");
	_exit(0);
}

/* ---- the parent ------------------------------------------------------------- */

int main(int argc, char **argv)
{
	unsigned int scale = vt_scale();
	unsigned long nprocs = 8 * scale, secs = vt_quick() ? 4 : 15 * scale;
	unsigned long max_ops = 4000 * scale;
	const struct vt_opt opts[] = {
		{ "procs", 1, 64, &nprocs, NULL },
		{ "secs", 1, 3600, &secs, NULL },
		{ "ops", 1, 100000000, &max_ops, NULL },
		{ NULL, 0, 0, NULL, NULL },
	};
	uint64_t seed = vt_default_seed(), t0, deadline;
	uint64_t min_frames[VT_MAX_DEVS] = { 0 };
	struct child *kids, tot;
	char why[1024], st[64];
	unsigned int signalled = 0, hung = 0, i;
	pid_t *pids;
	int *status, c;
	struct vt_snap snap;

	vt_options(argc, argv, opts, &seed);
	vt_begin("80-stress: random operations from many processes at once");
	frame_limit_ms = 10000 * scale;
	ndevs = vt_devices(devs, VT_MAX_DEVS);
	vt_plan(1 + 5 + vt_health_plan(ndevs) + 1);
	if (!vt_ok(ndevs > 0, "a vivpoll device exists", "none found"))
		return vt_end();
	vt_diag("seed %" PRIu64 " (--seed to repeat), scale %u, %lu processes, "
		"%lu s, at most %lu operations each, %d device(s)", seed,
		scale, nprocs, secs, max_ops, ndevs);
	vt_klog_mark(argv[0]);
	vt_kmemleak_begin();
	vt_snapshot(&snap);

	kids = vt_shared(nprocs * sizeof(*kids));
	pids = calloc(nprocs, sizeof(*pids));
	status = calloc(nprocs, sizeof(*status));
	t0 = vp_now_ns();
	deadline = t0 + secs * 1000000000ull;
	fflush(stdout);
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			me = &kids[i];
			child_main(seed + i * 0x1000193ull, deadline, max_ops);
		}
		if (pids[i] < 0)
			vt_diag("fork: %s", strerror(errno));
	}
	vt_reap(pids, status, nprocs,
		deadline + (uint64_t)(60 * scale) * 1000000000ull);

	memset(&tot, 0, sizeof(tot));
	why[0] = 0;
	for (i = 0; i < nprocs; i++) {
		struct child *k = &kids[i];

		tot.ops += k->ops;
		tot.ioctls += k->ioctls;
		tot.opens += k->opens;
		tot.closes += k->closes;
		tot.subscribes += k->subscribes;
		tot.waits += k->waits;
		tot.events += k->events;
		tot.mmap_streams += k->mmap_streams;
		tot.userptr_streams += k->userptr_streams;
		tot.dqbufs += k->dqbufs;
		tot.reads += k->reads;
		tot.read_bytes += k->read_bytes;
		tot.fmt_set += k->fmt_set;
		tot.fmt_busy += k->fmt_busy;
		tot.ctrl_sets += k->ctrl_sets;
		tot.busy += k->busy;
		tot.read_einval += k->read_einval;
		tot.unexpected += k->unexpected;
		tot.insane += k->insane;
		tot.stalls += k->stalls;
		if (k->max_frame_wait_ms > tot.max_frame_wait_ms)
			tot.max_frame_wait_ms = k->max_frame_wait_ms;
		for (c = 0; c < VT_MAX_DEVS; c++)
			min_frames[c] += k->dq_inst[c];
		if (status[i] == -1)
			hung++;
		else if (status[i] < 0 || WIFSIGNALED(status[i]) ||
			 WEXITSTATUS(status[i]))
			signalled++;
		else
			continue;
		vt_appendf(why, sizeof(why), "child %u: %s in \"%s\"; ", i,
			   vt_status_str(status[i], st, sizeof(st)), k->cur);
	}
	vt_diag("done in %.1f s: %lu processes, %" PRIu64 " operations, %"
		PRIu64 " ioctls", (vp_now_ns() - t0) / 1e9, nprocs, tot.ops,
		tot.ioctls);
	vt_diag("%" PRIu64 " opens, %" PRIu64 " closes, %" PRIu64
		" subscriptions, %" PRIu64 " waits, %" PRIu64 " events",
		tot.opens, tot.closes, tot.subscribes, tot.waits, tot.events);
	vt_diag("%" PRIu64 " mmap and %" PRIu64 " USERPTR streams, %" PRIu64
		" buffers dequeued (longest wait %" PRIu64 " ms), %" PRIu64
		" read() calls (%" PRIu64 " KiB)", tot.mmap_streams,
		tot.userptr_streams, tot.dqbufs, tot.max_frame_wait_ms,
		tot.reads, tot.read_bytes >> 10);
	vt_diag("%" PRIu64 " formats set, %" PRIu64 " refused as busy, %"
		PRIu64 " control sets, %" PRIu64 " EBUSY in all; %" PRIu64
		" blocking read() calls stopped by another fd's close (EINVAL)",
		tot.fmt_set, tot.fmt_busy, tot.ctrl_sets, tot.busy,
		tot.read_einval);

	vt_ok(!signalled && !hung, "every process exited normally",
	      "%u died or failed, %u hung: %s", signalled, hung, why);
	/* the first messages of each child, unexpected errnos and insane
	 * replies alike */
	why[0] = 0;
	for (i = 0; i < nprocs; i++) {
		unsigned int m;

		for (m = 0; m < kids[i].nmsg && strlen(why) < 700; m++)
			vt_appendf(why, sizeof(why), "[%u] %s; ", i,
				   kids[i].msg[m]);
		for (m = 0; m < kids[i].nmsg; m++)
			vt_diag("child %u: %s", i, kids[i].msg[m]);
	}
	vt_ok(!tot.unexpected, "every failing call failed with an expected "
	      "errno", "%u unexpected; %s", tot.unexpected, why);
	vt_ok(!tot.insane, "every reply of the driver is sane",
	      "%u insane; %s", tot.insane, why);
	vt_ok(!tot.stalls, "every streaming queue delivered its frames in "
	      "time", "%u waits for a frame timed out", tot.stalls);
	vt_ok(tot.dqbufs + tot.reads > 0, "frames were captured",
	      "no buffer dequeued, no read()");
	vt_health(&snap, min_frames, ndevs);
	vt_restore_defaults();
	return vt_end();
}
