// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-bufs: the buffer allocation checks of v4l2-compliance's
 * "test VIDIOC_REQBUFS/CREATE_BUFS/QUERYBUF" (testReqBufs() in v4l-utils
 * 1.22.1), from its per-memory loop on, for MMAP, USERPTR and DMABUF.
 * testReqBufs() returns at its first failed check: when tests/50-compliance.sh
 * tolerates a failure there as API drift (6.12: crbufs.reserved), every
 * check after it, for every memory type, would otherwise not run at all.
 *
 * For each memory type: the queue belongs to the file that allocated it
 * (EBUSY for another one, until it frees it); REQBUFS and CREATE_BUFS do
 * not report cache hints the queue lacks; CREATE_BUFS appends at index ==
 * the number of buffers and QUERYBUF reports each buffer dequeued and
 * empty, and EINVAL past the last; a format with half the image size is
 * refused and one with twice the size accepted. The reserved fields are not
 * checked (that is the drift). One "ok"/"not ok" line per memory type;
 * exit status 0 if all passed, 1 if not, 2 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common.h"

static const char *const mem_name[] = {
	[V4L2_MEMORY_MMAP] = "MMAP",
	[V4L2_MEMORY_USERPTR] = "USERPTR",
	[V4L2_MEMORY_DMABUF] = "DMABUF",
};

static char why[512];

/* Record the first failed check of a memory type; returns -1. */
static int fail(const char *fmt, ...)
{
	va_list ap;

	if (!why[0]) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ioctl() returning 0 or the errno */
static int io(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? errno : 0;
}

static int reqbufs(int fd, unsigned int mem, unsigned int count,
		   struct v4l2_requestbuffers *out)
{
	struct v4l2_requestbuffers rb;

	memset(&rb, 0, sizeof(rb));
	rb.count = count;
	rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	rb.memory = mem;
	if (out)
		rb.flags = out->flags;
	count = io(fd, VIDIOC_REQBUFS, &rb);
	if (out)
		*out = rb;
	return count;
}

static int create_bufs(int fd, unsigned int mem, const struct v4l2_format *f,
		       struct v4l2_create_buffers *cb)
{
	memset(cb, 0, sizeof(*cb));
	cb->count = 1;
	cb->memory = mem;
	cb->format = *f;
	return io(fd, VIDIOC_CREATE_BUFS, cb);
}

/* QUERYBUF of buffers 0..n-1 (dequeued, empty), then EINVAL for n */
static int querybufs(int fd, unsigned int mem, unsigned int n)
{
	const uint32_t states = V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_DONE |
				V4L2_BUF_FLAG_ERROR | V4L2_BUF_FLAG_PREPARED;
	struct v4l2_buffer b;
	unsigned int i;
	int r;

	for (i = 0; i <= n; i++) {
		memset(&b, 0, sizeof(b));
		b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b.memory = mem;
		b.index = i;
		r = io(fd, VIDIOC_QUERYBUF, &b);
		if (i == n)
			return r == EINVAL ? 0 :
			       fail("QUERYBUF of index %u of %u: %s, not EINVAL",
				    i, n, strerror(r));
		if (r)
			return fail("QUERYBUF %u of %u: %s", i, n, strerror(r));
		if (b.index != i || b.type != V4L2_BUF_TYPE_VIDEO_CAPTURE ||
		    b.memory != mem)
			return fail("QUERYBUF %u: index %u type %u memory %u",
				    i, b.index, b.type, b.memory);
		if (b.flags & states)
			return fail("QUERYBUF %u: flags 0x%x on a new buffer",
				    i, b.flags);
		if (b.sequence || b.timestamp.tv_sec || b.timestamp.tv_usec ||
		    !b.length)
			return fail("QUERYBUF %u: sequence %u, timestamp %ld.%06ld, "
				    "length %u", i, b.sequence,
				    (long)b.timestamp.tv_sec,
				    (long)b.timestamp.tv_usec, b.length);
	}
	return 0;
}

static int check_memory(int fd, int fd2, unsigned int mem,
			const struct v4l2_format *cur)
{
	struct v4l2_requestbuffers rb;
	struct v4l2_create_buffers cb;
	struct v4l2_format f;
	unsigned int n;
	bool hints;
	int r;

	/* the queue belongs to the file that allocated it */
	if ((r = reqbufs(fd, mem, 1, NULL)))
		return fail("REQBUFS(1): %s", strerror(r));
	if ((r = reqbufs(fd2, mem, 1, NULL)) != EBUSY)
		return fail("REQBUFS(1) from a second file: %s, not EBUSY",
			    strerror(r));
	if ((r = reqbufs(fd2, mem, 0, NULL)) != EBUSY)
		return fail("REQBUFS(0) from a second file: %s, not EBUSY",
			    strerror(r));
	if ((r = reqbufs(fd, mem, 0, NULL)))
		return fail("REQBUFS(0): %s", strerror(r));
	if ((r = reqbufs(fd2, mem, 1, NULL)) || (r = reqbufs(fd2, mem, 0, NULL)))
		return fail("REQBUFS from the second file once freed: %s",
			    strerror(r));

	/* cache hints: only reported back where the queue has them */
	memset(&rb, 0, sizeof(rb));
	rb.flags = V4L2_MEMORY_FLAG_NON_COHERENT;
	if ((r = reqbufs(fd, mem, 1, &rb)))
		return fail("REQBUFS(1, NON_COHERENT): %s", strerror(r));
	hints = mem == V4L2_MEMORY_MMAP &&
		(rb.capabilities & V4L2_BUF_CAP_SUPPORTS_MMAP_CACHE_HINTS);
	if (!!(rb.flags & V4L2_MEMORY_FLAG_NON_COHERENT) != hints)
		return fail("REQBUFS returned flags 0x%x, cache hints %s",
			    rb.flags, hints ? "supported" : "not supported");
	reqbufs(fd, mem, 0, NULL);
	memset(&cb, 0, sizeof(cb));
	cb.memory = mem;
	cb.format = *cur;
	cb.count = 1;
	cb.flags = V4L2_MEMORY_FLAG_NON_COHERENT;
	if ((r = io(fd, VIDIOC_CREATE_BUFS, &cb)))
		return fail("CREATE_BUFS(1, NON_COHERENT): %s", strerror(r));
	if (cb.index != 0 || cb.count < 1)
		return fail("CREATE_BUFS on an empty queue: index %u count %u",
			    cb.index, cb.count);
	if (!!(cb.flags & V4L2_MEMORY_FLAG_NON_COHERENT) != hints)
		return fail("CREATE_BUFS returned flags 0x%x", cb.flags);
	reqbufs(fd, mem, 0, NULL);

	/* CREATE_BUFS appends; QUERYBUF sees every buffer */
	if ((r = create_bufs(fd, mem, cur, &cb)) || !cb.count)
		return fail("CREATE_BUFS(1): %s, count %u", strerror(r),
			    cb.count);
	n = cb.count;
	if (querybufs(fd, mem, n))
		return -1;
	if ((r = create_bufs(fd, mem, cur, &cb)) || !cb.count)
		return fail("a second CREATE_BUFS(1): %s, count %u",
			    strerror(r), cb.count);
	if (cb.index != n)
		return fail("a second CREATE_BUFS: index %u, not %u", cb.index,
			    n);
	n += cb.count;
	if (querybufs(fd, mem, n))
		return -1;
	if ((r = create_bufs(fd2, mem, cur, &cb)) != EBUSY)
		return fail("CREATE_BUFS from a second file: %s, not EBUSY",
			    strerror(r));
	reqbufs(fd, mem, 0, NULL);

	/* the image size: half is refused, twice is accepted */
	f = *cur;
	f.fmt.pix.height /= 2;
	f.fmt.pix.sizeimage /= 2;
	if ((r = create_bufs(fd, mem, &f, &cb)) != EINVAL)
		return fail("CREATE_BUFS with sizeimage %u (half): %s, not "
			    "EINVAL", f.fmt.pix.sizeimage, strerror(r));
	if (querybufs(fd, mem, 0))
		return -1;
	f = *cur;
	f.fmt.pix.sizeimage *= 2;
	if ((r = create_bufs(fd, mem, &f, &cb)))
		return fail("CREATE_BUFS with sizeimage %u (twice): %s",
			    f.fmt.pix.sizeimage, strerror(r));
	if ((r = reqbufs(fd, mem, 0, NULL)))
		return fail("REQBUFS(0) at the end: %s", strerror(r));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *dev = NULL;
	struct v4l2_format cur;
	unsigned int mem;
	int c, fd, fd2, failed = 0;

	while ((c = getopt_long(argc, argv, "d:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'h':
			printf("usage: vivpoll-bufs [--device DEV]\n");
			return 0;
		default:
			fprintf(stderr, "usage: vivpoll-bufs [--device DEV]\n");
			return VP_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: vivpoll-bufs [--device DEV]\n");
		return VP_EXIT_USAGE;
	}
	fd = vp_open(dev, O_RDWR);
	fd2 = vp_open(dev, O_RDWR);
	if (fd < 0 || fd2 < 0) {
		fprintf(stderr, "vivpoll-bufs: %s: %s\n", dev ? dev : "vivpoll",
			strerror(-(fd < 0 ? fd : fd2)));
		return 1;
	}
	memset(&cur, 0, sizeof(cur));
	cur.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (io(fd, VIDIOC_G_FMT, &cur)) {
		fprintf(stderr, "vivpoll-bufs: G_FMT: %s\n", strerror(errno));
		return 1;
	}
	for (mem = V4L2_MEMORY_MMAP; mem <= V4L2_MEMORY_DMABUF; mem++) {
		if (mem == V4L2_MEMORY_OVERLAY)
			continue;
		why[0] = 0;
		if (check_memory(fd, fd2, mem, &cur)) {
			failed++;
			printf("not ok - %s: REQBUFS/CREATE_BUFS/QUERYBUF # %s\n",
			       mem_name[mem], why);
			reqbufs(fd, mem, 0, NULL);
		} else {
			printf("ok - %s: REQBUFS/CREATE_BUFS/QUERYBUF\n",
			       mem_name[mem]);
		}
	}
	close(fd2);
	close(fd);
	return failed ? 1 : 0;
}
