// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-prove: the wait APIs of the matrix rows. Each driver waits on the
 * video fd (and, in the "ready" situations, an already readable eventfd
 * placed before or after it) for what the cell requests, and reports what
 * was returned for the video fd. Requests: REQ_PRI -> exceptfds / POLLPRI /
 * EPOLLPRI; REQ_IN -> readfds / POLLIN / EPOLLIN.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/videodev2.h>
#include <liburing.h>

#include "prove.h"

#define UD_VIDEO	1
#define UD_EVENT	2

static uint32_t req_events(unsigned int req)
{
	return ((req & REQ_PRI) ? POLLPRI : 0) | ((req & REQ_IN) ? POLLIN : 0);
}

static struct timespec ms_to_ts(unsigned long ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	return ts;
}

/* ---- select / pselect ----------------------------------------------- */

static int build_fdsets(struct wait_ctx *w, fd_set *rd, fd_set *ex)
{
	int nfds = w->vfd;

	FD_ZERO(rd);
	FD_ZERO(ex);
	if (w->req & REQ_IN)
		FD_SET(w->vfd, rd);
	if (w->req & REQ_PRI)
		FD_SET(w->vfd, ex);
	if (w->efd >= 0) {
		FD_SET(w->efd, rd);
		if (w->efd > nfds)
			nfds = w->efd;
	}
	return nfds + 1;
}

static uint32_t fdset_revents(struct wait_ctx *w, fd_set *rd, fd_set *ex)
{
	return (FD_ISSET(w->vfd, rd) ? POLLIN : 0) |
	       (FD_ISSET(w->vfd, ex) ? POLLPRI : 0);
}

static int select_wait(struct wait_ctx *w, unsigned long ms, uint32_t *rev)
{
	struct timeval tv = { ms / 1000, (long)(ms % 1000) * 1000 };
	fd_set rd, ex;
	int nfds = build_fdsets(w, &rd, &ex);
	int r = select(nfds, &rd, NULL, &ex, &tv);

	if (r < 0)
		return -errno;
	*rev = r ? fdset_revents(w, &rd, &ex) : 0;
	return r;
}

static int pselect_wait(struct wait_ctx *w, unsigned long ms, uint32_t *rev)
{
	struct timespec ts = ms_to_ts(ms);
	fd_set rd, ex;
	int nfds = build_fdsets(w, &rd, &ex);
	int r = pselect(nfds, &rd, NULL, &ex, &ts, NULL);

	if (r < 0)
		return -errno;
	*rev = r ? fdset_revents(w, &rd, &ex) : 0;
	return r;
}

/* ---- poll / ppoll --------------------------------------------------- */

static int build_pollfds(struct wait_ctx *w, struct pollfd *p, int *vidx)
{
	int n = 0;

	if (w->efd >= 0 && w->efd_first)
		p[n++] = (struct pollfd){ .fd = w->efd, .events = POLLIN };
	*vidx = n;
	p[n++] = (struct pollfd){ .fd = w->vfd,
				  .events = (short)req_events(w->req) };
	if (w->efd >= 0 && !w->efd_first)
		p[n++] = (struct pollfd){ .fd = w->efd, .events = POLLIN };
	return n;
}

static int poll_wait_once(struct wait_ctx *w, unsigned long ms, uint32_t *rev)
{
	struct pollfd p[2];
	int vidx, n = build_pollfds(w, p, &vidx);
	int r = poll(p, n, (int)ms);

	if (r < 0)
		return -errno;
	*rev = (uint16_t)p[vidx].revents;
	return r;
}

static int ppoll_wait_once(struct wait_ctx *w, unsigned long ms,
			   uint32_t *rev)
{
	struct timespec ts = ms_to_ts(ms);
	struct pollfd p[2];
	int vidx, n = build_pollfds(w, p, &vidx);
	int r = ppoll(p, n, &ts, NULL);

	if (r < 0)
		return -errno;
	*rev = (uint16_t)p[vidx].revents;
	return r;
}

/* ---- epoll ------------------------------------------------------------ */

static int ep_add(struct wait_ctx *w, int fd, uint32_t events, uint32_t ud)
{
	struct epoll_event ev = { .events = events, .data.u32 = ud };

	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		snprintf(w->err, sizeof(w->err), "EPOLL_CTL_ADD: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* ADD eventfd and video fd in the situation's order. */
static int ep_add_both(struct wait_ctx *w, uint32_t vevents)
{
	int r;

	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		return -errno;
	if (w->efd >= 0 && w->efd_first) {
		r = ep_add(w, w->efd, EPOLLIN, UD_EVENT);
		if (r)
			return r;
	}
	r = ep_add(w, w->vfd, vevents, UD_VIDEO);
	if (r)
		return r;
	if (w->efd >= 0 && !w->efd_first)
		r = ep_add(w, w->efd, EPOLLIN, UD_EVENT);
	return r;
}

static int epoll_add_setup(struct wait_ctx *w)
{
	return ep_add_both(w, req_events(w->req));
}

static int reqbufs(struct wait_ctx *w, unsigned int count)
{
	struct v4l2_requestbuffers rb;

	memset(&rb, 0, sizeof(rb));
	rb.count = count;
	rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	rb.memory = V4L2_MEMORY_MMAP;
	if (ioctl(w->vfd, VIDIOC_REQBUFS, &rb) < 0) {
		snprintf(w->err, sizeof(w->err), "VIDIOC_REQBUFS(%u): %s",
			 count, strerror(errno));
		return -errno;
	}
	if (count && !rb.count) {
		snprintf(w->err, sizeof(w->err), "VIDIOC_REQBUFS: 0 buffers");
		return -ENOMEM;
	}
	return 0;
}

/*
 * ADD (events 0) while buffers are allocated, so that no poll of the ADD
 * can start file-io; free them; then MOD to the requested events. See
 * prove-expect.c.
 */
static int epoll_mod_setup(struct wait_ctx *w)
{
	struct epoll_event ev = { .events = req_events(w->req),
				  .data.u32 = UD_VIDEO };
	int r;

	r = reqbufs(w, 2);
	if (r)
		return r;
	r = ep_add_both(w, 0);
	if (r)
		return r;
	r = reqbufs(w, 0);
	if (r)
		return r;
	if (epoll_ctl(w->epfd, EPOLL_CTL_MOD, w->vfd, &ev) < 0) {
		snprintf(w->err, sizeof(w->err), "EPOLL_CTL_MOD: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

static int epoll_wait_once(struct wait_ctx *w, unsigned long ms,
			   uint32_t *rev)
{
	struct epoll_event evs[4];
	int i, r = epoll_wait(w->epfd, evs, 4, (int)ms);

	if (r < 0)
		return -errno;
	*rev = 0;
	for (i = 0; i < r; i++)
		if (evs[i].data.u32 == UD_VIDEO)
			*rev = evs[i].events;
	return r;
}

static void epoll_teardown(struct wait_ctx *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	w->epfd = -1;
}

/* ---- io_uring --------------------------------------------------------- */

static int uring_setup(struct wait_ctx *w)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));
	int r;

	if (!ring)
		return -ENOMEM;
	r = io_uring_queue_init(8, ring, 0);
	if (r < 0) {
		free(ring);
		snprintf(w->err, sizeof(w->err), "io_uring_queue_init: %s",
			 strerror(-r));
		return r;
	}
	w->priv = ring;
	return 0;
}

static int uring_arm(struct io_uring *ring, int fd,
		     uint32_t events, uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, fd, events);
	io_uring_sqe_set_data64(sqe, ud);
	return 0;
}

/* Account one completion; returns the revents if it is the video fd's. */
static uint32_t uring_reap(struct wait_ctx *w, struct io_uring_cqe *cqe)
{
	uint64_t ud = io_uring_cqe_get_data64(cqe);
	uint32_t rev = 0;

	if (ud == UD_VIDEO) {
		w->vpending = false;
		if (cqe->res > 0)
			rev = (uint32_t)cqe->res;
	} else if (ud == UD_EVENT) {
		w->epending = false;
	}
	return rev;
}

static int uring_wait_once(struct wait_ctx *w, unsigned long ms,
			   uint32_t *rev)
{
	struct io_uring *ring = w->priv;
	struct io_uring_cqe *cqe;
	int r, n = 0;

	/* (Re-)arm what is not armed, in the situation's order. */
	if (w->efd >= 0 && w->efd_first && !w->epending) {
		if (uring_arm(ring, w->efd, POLLIN, UD_EVENT))
			return -EBUSY;
		w->epending = true;
	}
	if (!w->vpending) {
		if (uring_arm(ring, w->vfd, req_events(w->req), UD_VIDEO))
			return -EBUSY;
		w->vpending = true;
	}
	if (w->efd >= 0 && !w->efd_first && !w->epending) {
		if (uring_arm(ring, w->efd, POLLIN, UD_EVENT))
			return -EBUSY;
		w->epending = true;
	}
	r = io_uring_submit(ring);
	if (r < 0)
		return r;

	*rev = 0;
	if (ms) {
		struct __kernel_timespec ts = { ms / 1000,
						(long long)(ms % 1000) *
						1000000LL };

		r = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (r == -ETIME)
			return 0;
		if (r < 0)
			return r;
	} else {
		r = io_uring_peek_cqe(ring, &cqe);
		if (r == -EAGAIN)
			return 0;
		if (r < 0)
			return r;
	}
	/* Drain everything that is complete now. */
	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		*rev |= uring_reap(w, cqe);
		io_uring_cqe_seen(ring, cqe);
		n++;
	}
	return n;
}

static void uring_teardown(struct wait_ctx *w)
{
	struct io_uring *ring = w->priv;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int expect = 0;

	if (!ring)
		return;
	/* Cancel what is still armed and wait for it, so that no request
	 * keeps a reference to the video file after this. */
	if (w->vpending && (sqe = io_uring_get_sqe(ring))) {
		io_uring_prep_poll_remove(sqe, UD_VIDEO);
		io_uring_sqe_set_data64(sqe, 0);
		expect++;
	}
	if (w->epending && (sqe = io_uring_get_sqe(ring))) {
		io_uring_prep_poll_remove(sqe, UD_EVENT);
		io_uring_sqe_set_data64(sqe, 0);
		expect++;
	}
	if (expect)
		io_uring_submit(ring);
	while (expect > 0 || w->vpending || w->epending) {
		struct __kernel_timespec ts = { 1, 0 };

		if (io_uring_wait_cqe_timeout(ring, &cqe, &ts))
			break;
		if (io_uring_cqe_get_data64(cqe) == 0)
			expect--;
		else
			uring_reap(w, cqe);
		io_uring_cqe_seen(ring, cqe);
	}
	io_uring_queue_exit(ring);
	free(ring);
	w->priv = NULL;
}

/* ---- aio (raw syscalls) ----------------------------------------------- */

struct aio_state {
	aio_context_t ctx;
	struct iocb cb[2];
};

static int aio_setup(struct wait_ctx *w)
{
	struct aio_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (syscall(SYS_io_setup, 8, &s->ctx) < 0) {
		snprintf(w->err, sizeof(w->err), "io_setup: %s",
			 strerror(errno));
		free(s);
		return -errno;
	}
	w->priv = s;
	return 0;
}

static void aio_prep(struct iocb *cb, int fd, uint32_t events, uint64_t ud)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = IOCB_CMD_POLL;
	cb->aio_fildes = fd;
	cb->aio_buf = events;
	cb->aio_data = ud;
}

/* One io_submit() per iocb, so that an error is attributed to its fd. */
static int aio_submit(struct wait_ctx *w, struct iocb *cb)
{
	struct aio_state *s = w->priv;
	struct iocb *list[1] = { cb };

	if (syscall(SYS_io_submit, s->ctx, 1L, list) == 1)
		return 0;
	return -errno;
}

static int aio_wait_once(struct wait_ctx *w, unsigned long ms, uint32_t *rev)
{
	struct aio_state *s = w->priv;
	struct io_event evs[4];
	struct timespec ts = ms_to_ts(ms);
	int i, r;

	if (w->efd >= 0 && w->efd_first && !w->epending) {
		aio_prep(&s->cb[1], w->efd, POLLIN, UD_EVENT);
		r = aio_submit(w, &s->cb[1]);
		if (r)
			goto submit_failed;
		w->epending = true;
	}
	if (!w->vpending) {
		aio_prep(&s->cb[0], w->vfd, req_events(w->req), UD_VIDEO);
		r = aio_submit(w, &s->cb[0]);
		if (r == -EINVAL) {
			/*
			 * aio poll supports one wait queue per file; vb2
			 * files use two (see prove-expect.c): refused unless
			 * the first ->poll() already reported an event.
			 */
			w->refused = true;
			snprintf(w->err, sizeof(w->err), "io_submit(IOCB_CMD_POLL)"
				 " on the video fd: EINVAL");
			return r;
		}
		if (r)
			goto submit_failed;
		w->vpending = true;
	}
	if (w->efd >= 0 && !w->efd_first && !w->epending) {
		aio_prep(&s->cb[1], w->efd, POLLIN, UD_EVENT);
		r = aio_submit(w, &s->cb[1]);
		if (r)
			goto submit_failed;
		w->epending = true;
	}
	*rev = 0;
	r = (int)syscall(SYS_io_getevents, s->ctx, ms ? 1L : 0L, 4L, evs,
			 &ts);
	if (r < 0)
		return -errno;
	for (i = 0; i < r; i++) {
		if (evs[i].data == UD_VIDEO) {
			w->vpending = false;
			if (evs[i].res > 0)
				*rev |= (uint32_t)evs[i].res;
		} else if (evs[i].data == UD_EVENT) {
			w->epending = false;
		}
	}
	return r;

submit_failed:
	snprintf(w->err, sizeof(w->err), "io_submit: %s", strerror(-r));
	return r;
}

static void aio_teardown(struct wait_ctx *w)
{
	struct aio_state *s = w->priv;

	if (!s)
		return;
	/* io_destroy() cancels the armed polls and waits for them. */
	syscall(SYS_io_destroy, s->ctx);
	free(s);
	w->priv = NULL;
	w->vpending = w->epending = false;
}

/* ---- table -------------------------------------------------------------- */

static const struct wait_ops select_ops = { .wait_once = select_wait };
static const struct wait_ops pselect_ops = { .wait_once = pselect_wait };
static const struct wait_ops poll_ops = { .wait_once = poll_wait_once };
static const struct wait_ops ppoll_ops = { .wait_once = ppoll_wait_once };
static const struct wait_ops epoll_add_ops = {
	.setup = epoll_add_setup,
	.wait_once = epoll_wait_once,
	.teardown = epoll_teardown,
};
static const struct wait_ops epoll_mod_ops = {
	.setup = epoll_mod_setup,
	.wait_once = epoll_wait_once,
	.teardown = epoll_teardown,
};
static const struct wait_ops uring_ops = {
	.setup = uring_setup,
	.wait_once = uring_wait_once,
	.teardown = uring_teardown,
};
static const struct wait_ops aio_ops = {
	.setup = aio_setup,
	.wait_once = aio_wait_once,
	.teardown = aio_teardown,
};

const struct wait_ops *const prove_wait_ops[API_COUNT] = {
	[API_SELECT] = &select_ops,
	[API_PSELECT] = &pselect_ops,
	[API_POLL] = &poll_ops,
	[API_PPOLL] = &ppoll_ops,
	[API_EPOLL_ADD] = &epoll_add_ops,
	[API_EPOLL_MOD] = &epoll_mod_ops,
	[API_IO_URING] = &uring_ops,
	[API_AIO] = &aio_ops,
};
