// SPDX-License-Identifier: GPL-2.0
/*
 * 86-ioctl-fuzz: a focused ioctl fuzzer for vivpoll. Several processes,
 * each with two non-blocking fds on the vivpoll devices, make a fixed
 * number of calls in total, each a random one of the V4L2 ioctls the
 * driver supports (QUERYCAP, ENUM_FMT, G/S/TRY_FMT, REQBUFS, QUERYBUF,
 * QBUF, DQBUF, EXPBUF, STREAMON/OFF, G/S_PARM, ENUM_FRAMESIZES,
 * ENUM_FRAMEINTERVALS, ENUMINPUT, G/S_INPUT, QUERYCTRL, QUERY_EXT_CTRL,
 * QUERYMENU, G/S_CTRL, G/S/TRY_EXT_CTRLS, SUBSCRIBE/UNSUBSCRIBE_EVENT,
 * DQEVENT, LOG_STATUS, G/S_PRIORITY, CREATE_BUFS, PREPARE_BUF), a few it
 * does not (ENOTTY), or a random ioctl number, with every field of the
 * argument random or a boundary value (0, 1, -1, INT_MAX, huge sizes...).
 *
 * Pointers are NULL, valid, or clearly invalid: a kernel address, a
 * non-canonical one, a PROT_NONE page, a struct that runs into a PROT_NONE
 * page, or a read-only page; pointers inside the argument (ext control
 * arrays, planes, EDID, USERPTR memory, dmabuf fds) likewise. A bad
 * argument pointer must give EFAULT (or the ioctl's own error before any
 * copy), never success.
 *
 * Checks: no process dies from a signal or hangs; every errno is one that
 * ioctl may return; a few replies are sane. Then the checks of vt_health().
 * The argument sequence of each process is fixed by the seed; the
 * interleaving of the processes is not.
 *
 *   86-ioctl-fuzz [--seed N] [--calls N] [--procs N] [--secs S]
 *                 [--probe-vb2]
 *
 * Defaults: 20000*scale calls in total by 4 processes, at most 20*scale
 * seconds. A run that stops on that time budget must have made at least
 * half of its calls (10000*scale by default; the quick tier makes all
 * 20000 in under 2 s under TCG on 2 vCPUs, the debug kernel's full tier
 * made 30730 of 40000 in its 40 s). --probe-vb2 first demonstrates four known behaviours of the
 * vb2 core that the fuzzer runs into (USERPTR memory the caller cannot
 * access taken on 6.1, a failed DQBUF ending the stream,
 * a failed read() taking the queue over, a 2 GiB CREATE_BUFS) and prints
 * what happens, as notes; they are not counted as failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define NPROC_MAX	16
#define FDS		2
#define NERR		136	/* errno histogram: 0 = success, 1..134 */
#define ARENA		(64 * 1024)
#define UPTR_LEN	(9 << 20)	/* > 1920x1080x4 */
#define PAGE		4096
#define STATS_MAGIC	0x76697670666f7a7aull	/* "vivpfozz" */

/* ---- the ioctls ---------------------------------------------------------- */

struct ctx;
typedef void (*fill_fn)(struct ctx *c, void *arg);

struct fz {
	const char *name;
	unsigned long req;
	fill_fn fill;
	const int *errs;	/* what it may fail with, 0-terminated */
	unsigned int weight;
};

/*
 * What a fuzzing process reports to the parent, in memory they share. It
 * lies outside every range the fuzzer passes to the kernel, but a kernel
 * that writes where it should not could still reach it: the magics around
 * it tell the parent (see stats_intact()).
 */
struct stats {
	uint64_t head;
	uint64_t calls[64][NERR];	/* per fz entry, per errno */
	uint64_t rnd_calls, rnd_ok, bad_ptr_calls, exported;
	unsigned int unexpected, insane, nmsg;
	char cur[200];
	char msg[6][200];
	uint64_t tail;
};

struct ctx {
	struct vt_rng rng;
	int fd[FDS];
	int cur_fd;
	uint8_t *arena;		/* ARENA bytes, RW */
	uint8_t *side;		/* ARENA bytes, RW: arrays the arg points to */
	uint8_t *guard;		/* a RW page, then UPTR_LEN of PROT_NONE */
	uint8_t *ro;		/* a page made read-only for the call */
	uint8_t *uptr;		/* USERPTR memory */
	int dmabufs[8];
	int ndmabufs;
	bool inner_bad;		/* a pointer inside the arg is invalid */
	struct stats *st;
};

static const int E_NONE[] = { 0 };
static const int E_INVAL[] = { EINVAL, 0 };
static const int E_FMT[] = { EINVAL, EBUSY, EFAULT, 0 };
static const int E_BUFS[] = { EINVAL, EBUSY, ENOMEM, ENOBUFS, EFAULT, 0 };
/* EBADR: V4L2_BUF_FLAG_REQUEST_FD on a queue without request support */
static const int E_QBUF[] = { EINVAL, EBUSY, EFAULT, ENOMEM, EBADR, 0 };
static const int E_DQBUF[] = { EINVAL, EBUSY, EAGAIN, EFAULT, EPIPE, 0 };
static const int E_STREAM[] = { EINVAL, EBUSY, ENOMEM, ENOSPC, 0 };
static const int E_BUSY[] = { EINVAL, EBUSY, 0 };
static const int E_CTRL[] = { EINVAL, EACCES, ERANGE, EBUSY, 0 };
static const int E_EXT[] = { EINVAL, EACCES, ERANGE, EBUSY, EFAULT,
			     ENOSPC, ENOMEM, 0 };
static const int E_SUB[] = { EINVAL, ENOMEM, 0 };
static const int E_DQEV[] = { ENOENT, 0 };
static const int E_NOTTY[] = { ENOTTY, EINVAL, EFAULT, 0 };

/* ---- value generators -------------------------------------------------- */

static uint32_t u32v(struct ctx *c)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 4, 7, 8, 31, 32, 33, 63, 64, 255, 256, 1023, 1024,
		4096, 0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff,
	};

	switch (vt_below(&c->rng, 4)) {
	case 0:
		return vt_rand32(&c->rng);
	case 1:
		return vt_below(&c->rng, 16);
	default:
		return v[vt_below(&c->rng, VT_ARRAY_SIZE(v))];
	}
}

static int64_t s64v(struct ctx *c)
{
	static const int64_t v[] = {
		0, 1, -1, 2, 127, 128, 255, 256, -128, INT32_MAX, INT32_MIN,
		INT64_MAX, INT64_MIN,
	};

	return vt_one_in(&c->rng, 3) ? (int64_t)vt_rand64(&c->rng) :
	       v[vt_below(&c->rng, VT_ARRAY_SIZE(v))];
}

static uint32_t buftype(struct ctx *c)
{
	if (vt_below(&c->rng, 10) < 7)
		return V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (vt_one_in(&c->rng, 2))
		return vt_below(&c->rng, 16);
	return u32v(c);
}

static uint32_t memtype(struct ctx *c)
{
	static const uint32_t m[] = {
		V4L2_MEMORY_MMAP, V4L2_MEMORY_MMAP, V4L2_MEMORY_MMAP,
		V4L2_MEMORY_USERPTR, V4L2_MEMORY_DMABUF, V4L2_MEMORY_OVERLAY,
		0, 5,
	};

	return vt_one_in(&c->rng, 10) ? u32v(c) :
	       m[vt_below(&c->rng, VT_ARRAY_SIZE(m))];
}

static uint32_t fourccv(struct ctx *c)
{
	static const uint32_t f[] = {
		V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_UYVY, V4L2_PIX_FMT_RGB24,
		V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_XBGR32, V4L2_PIX_FMT_RGB565,
		V4L2_PIX_FMT_GREY, V4L2_PIX_FMT_MJPEG, 0,
	};

	return vt_one_in(&c->rng, 4) ? u32v(c) :
	       f[vt_below(&c->rng, VT_ARRAY_SIZE(f))];
}

/* mostly small: filling 1920x1080 frames takes long under TCG */
static uint32_t dimv(struct ctx *c, bool height)
{
	static const uint32_t w[] = { 320, 640, 320, 640, 1280, 1920 };
	static const uint32_t h[] = { 240, 480, 240, 480, 720, 1080 };
	unsigned int i = vt_below(&c->rng, VT_ARRAY_SIZE(w));

	if (vt_one_in(&c->rng, 4))
		return u32v(c);
	return height ? h[i] : w[i];
}

static uint32_t ctrl_idv(struct ctx *c)
{
	static const uint32_t ids[] = {
		V4L2_CID_BRIGHTNESS, V4L2_CID_CONTRAST, V4L2_CID_SATURATION,
		V4L2_CID_HUE, V4L2_CID_TEST_PATTERN, VIVPOLL_CID_ENGINE_RUNNING,
		VIVPOLL_CID_ENGINE_STARTS, VIVPOLL_CID_FRAMES,
		VIVPOLL_CID_DROPS, VIVPOLL_CID_CAM2_SIGNAL,
		VIVPOLL_CID_VIVPOLL_CLASS, V4L2_CID_AUTOGAIN,
		V4L2_CID_USER_CLASS, V4L2_CID_USER_BASE, V4L2_CID_GAIN, 0,
	};
	uint32_t id = vt_one_in(&c->rng, 6) ? u32v(c) :
		      ids[vt_below(&c->rng, VT_ARRAY_SIZE(ids))];

	if (vt_one_in(&c->rng, 6))
		id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	if (vt_one_in(&c->rng, 10))
		id |= V4L2_CTRL_FLAG_NEXT_COMPOUND;
	return id;
}

/* A pointer for inside the argument: valid side memory, NULL or bad. */
static void *inner_ptr(struct ctx *c, size_t need)
{
	switch (vt_below(&c->rng, 12)) {
	case 0:
		c->inner_bad = true;
		return NULL;
	case 1:
		c->inner_bad = true;
		return (void *)0xffffffff81000000ul;	/* kernel */
	case 2:
		c->inner_bad = true;
		return c->guard + PAGE;			/* PROT_NONE */
	case 3:
		/* the last bytes of the RW page, then PROT_NONE */
		c->inner_bad = true;
		return c->guard + PAGE - (need < 2 ? 1 : need / 2 < PAGE ?
					  need / 2 : PAGE);
	default:
		memset(c->side, 0, need < ARENA ? need : ARENA);
		return c->side;
	}
}

/* ---- argument fillers ----------------------------------------------------- */

static void f_none(struct ctx *c, void *a)
{
	(void)c;
	(void)a;
}

static void f_fmtdesc(struct ctx *c, void *a)
{
	struct v4l2_fmtdesc *f = a;

	f->index = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 9) : u32v(c);
	f->type = buftype(c);
	f->mbus_code = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
}

static void f_format(struct ctx *c, void *a)
{
	struct v4l2_format *f = a;

	f->type = buftype(c);
	f->fmt.pix.width = dimv(c, false);
	f->fmt.pix.height = dimv(c, true);
	f->fmt.pix.pixelformat = fourccv(c);
	f->fmt.pix.field = vt_one_in(&c->rng, 3) ? u32v(c) : V4L2_FIELD_NONE;
	f->fmt.pix.bytesperline = vt_one_in(&c->rng, 2) ? u32v(c) : 0;
	f->fmt.pix.sizeimage = vt_one_in(&c->rng, 2) ? u32v(c) : 0;
	f->fmt.pix.colorspace = vt_one_in(&c->rng, 2) ? u32v(c) : 0;
	f->fmt.pix.priv = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	f->fmt.pix.flags = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	if (f->type == V4L2_BUF_TYPE_VIDEO_OVERLAY ||
	    f->type == V4L2_BUF_TYPE_VIDEO_OUTPUT_OVERLAY) {
		/* the core copies the clip list before anything else */
		f->fmt.win.clipcount = vt_one_in(&c->rng, 2) ?
				       vt_below(&c->rng, 8) : u32v(c);
		f->fmt.win.clips = inner_ptr(c, f->fmt.win.clipcount < 2048 ?
					     f->fmt.win.clipcount *
					     sizeof(struct v4l2_clip) : 16);
	}
}

static void f_reqbufs(struct ctx *c, void *a)
{
	struct v4l2_requestbuffers *r = a;

	r->count = vt_one_in(&c->rng, 3) ? u32v(c) : vt_below(&c->rng, 6);
	r->type = buftype(c);
	r->memory = memtype(c);
	r->flags = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
}

static void f_buffer(struct ctx *c, void *a)
{
	struct v4l2_buffer *b = a;

	b->index = vt_one_in(&c->rng, 3) ? u32v(c) : vt_below(&c->rng, 8);
	b->type = buftype(c);
	b->memory = memtype(c);
	b->bytesused = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	b->flags = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	b->field = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	b->length = vt_one_in(&c->rng, 2) ? u32v(c) :
		    (uint32_t)vt_below(&c->rng, UPTR_LEN);
	if (V4L2_TYPE_IS_MULTIPLANAR(b->type)) {
		b->length = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 10) :
			    u32v(c);
		b->m.planes = inner_ptr(c, b->length <= VIDEO_MAX_PLANES ?
					b->length * sizeof(struct v4l2_plane) :
					16);
	} else if (b->memory == V4L2_MEMORY_USERPTR) {
		switch (vt_below(&c->rng, 6)) {
		case 0:
			b->m.userptr = 0;
			break;
		case 1:
			b->m.userptr = 0xffffffff81000000ul;
			break;
		case 2:
			/*
			 * 6.1's vb2 pins USERPTR memory with FOLL_FORCE
			 * (6.12's does not), so PROT_NONE memory is taken
			 * and frames are written into it: never past it.
			 */
			b->m.userptr = (unsigned long)c->guard + PAGE;
			if (b->length > UPTR_LEN)
				b->length = UPTR_LEN;
			break;
		case 3:
			/* unaligned; within uptr, or the engine would write
			 * frames into whatever mapping follows it */
			b->m.userptr = (unsigned long)c->uptr + 1;
			if (b->length > UPTR_LEN - 1)
				b->length = UPTR_LEN - 1;
			break;
		default:
			/* memory the engine may write frames into */
			b->m.userptr = (unsigned long)c->uptr;
			if (b->length > UPTR_LEN)
				b->length = UPTR_LEN;
			break;
		}
	} else if (b->memory == V4L2_MEMORY_DMABUF) {
		b->m.fd = c->ndmabufs && vt_one_in(&c->rng, 2) ?
			  c->dmabufs[vt_below(&c->rng, c->ndmabufs)] :
			  (int)s64v(c);
	} else {
		b->m.offset = vt_one_in(&c->rng, 2) ? u32v(c) : 0;
	}
	b->request_fd = vt_one_in(&c->rng, 8) ? (int)u32v(c) : 0;
}

static void f_expbuf(struct ctx *c, void *a)
{
	struct v4l2_exportbuffer *e = a;
	static const uint32_t flags[] = {
		O_CLOEXEC, O_RDWR | O_CLOEXEC, O_RDONLY | O_CLOEXEC,
	};

	e->type = buftype(c);
	e->index = vt_one_in(&c->rng, 3) ? u32v(c) : vt_below(&c->rng, 8);
	e->plane = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	e->flags = vt_one_in(&c->rng, 4) ? u32v(c) :
		   flags[vt_below(&c->rng, 3)];
}

static void f_type(struct ctx *c, void *a)
{
	*(int *)a = (int)buftype(c);
}

static void f_parm(struct ctx *c, void *a)
{
	struct v4l2_streamparm *p = a;

	p->type = buftype(c);
	p->parm.capture.timeperframe.numerator =
		vt_one_in(&c->rng, 2) ? 1 : u32v(c);
	p->parm.capture.timeperframe.denominator = u32v(c);
	p->parm.capture.capability = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	p->parm.capture.capturemode = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
	p->parm.capture.readbuffers = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
}

static void f_frmsize(struct ctx *c, void *a)
{
	struct v4l2_frmsizeenum *f = a;

	f->index = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 6) : u32v(c);
	f->pixel_format = fourccv(c);
}

static void f_frmival(struct ctx *c, void *a)
{
	struct v4l2_frmivalenum *f = a;

	f->index = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 9) : u32v(c);
	f->pixel_format = fourccv(c);
	f->width = dimv(c, false);
	f->height = dimv(c, true);
}

static void f_input(struct ctx *c, void *a)
{
	struct v4l2_input *i = a;

	i->index = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 3) : u32v(c);
}

static void f_u32(struct ctx *c, void *a)
{
	*(uint32_t *)a = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 3) : u32v(c);
}

static void f_queryctrl(struct ctx *c, void *a)
{
	((struct v4l2_queryctrl *)a)->id = ctrl_idv(c);
}

static void f_query_ext(struct ctx *c, void *a)
{
	((struct v4l2_query_ext_ctrl *)a)->id = ctrl_idv(c);
}

static void f_querymenu(struct ctx *c, void *a)
{
	struct v4l2_querymenu *q = a;

	q->id = vt_one_in(&c->rng, 2) ? V4L2_CID_TEST_PATTERN : ctrl_idv(c);
	q->index = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 24) : u32v(c);
}

static void f_ctrl(struct ctx *c, void *a)
{
	struct v4l2_control *x = a;

	x->id = ctrl_idv(c) & ~(V4L2_CTRL_FLAG_NEXT_CTRL |
				V4L2_CTRL_FLAG_NEXT_COMPOUND);
	x->value = (int32_t)s64v(c);
}

static void f_ext_ctrls(struct ctx *c, void *a)
{
	static const uint32_t which[] = {
		V4L2_CTRL_WHICH_CUR_VAL, V4L2_CTRL_WHICH_DEF_VAL,
		V4L2_CTRL_WHICH_REQUEST_VAL, V4L2_CTRL_CLASS_USER,
		V4L2_CTRL_CLASS_CAMERA,
	};
	struct v4l2_ext_controls *x = a;
	struct v4l2_ext_control *ctl;
	unsigned int i, n;

	x->which = vt_one_in(&c->rng, 5) ? u32v(c) :
		   which[vt_below(&c->rng, VT_ARRAY_SIZE(which))];
	switch (vt_below(&c->rng, 5)) {
	case 0:
		x->count = u32v(c);
		break;
	case 1:
		x->count = 0;
		break;
	default:
		x->count = 1 + vt_below(&c->rng, 6);
		break;
	}
	x->error_idx = u32v(c);
	x->request_fd = vt_one_in(&c->rng, 8) ? (int)u32v(c) : 0;
	/* at most V4L2_CID_MAX_CTRLS (1024) entries are copied */
	n = x->count <= 1024 ? x->count : 1;
	ctl = inner_ptr(c, n * sizeof(*ctl));
	x->controls = ctl;
	if (ctl != (void *)c->side)
		return;
	for (i = 0; i < n && i < 64; i++) {
		ctl[i].id = ctrl_idv(c) & ~(V4L2_CTRL_FLAG_NEXT_CTRL |
					    V4L2_CTRL_FLAG_NEXT_COMPOUND);
		ctl[i].size = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
		ctl[i].value64 = s64v(c);
	}
}

static void f_sub(struct ctx *c, void *a)
{
	static const uint32_t types[] = {
		V4L2_EVENT_ALL, V4L2_EVENT_VSYNC, V4L2_EVENT_EOS,
		V4L2_EVENT_CTRL, V4L2_EVENT_FRAME_SYNC,
		V4L2_EVENT_SOURCE_CHANGE, V4L2_EVENT_MOTION_DET,
		V4L2_EVENT_PRIVATE_START,
	};
	struct v4l2_event_subscription *s = a;

	s->type = vt_one_in(&c->rng, 5) ? u32v(c) :
		  types[vt_below(&c->rng, VT_ARRAY_SIZE(types))];
	s->id = s->type == V4L2_EVENT_CTRL ? ctrl_idv(c) : u32v(c);
	s->flags = vt_one_in(&c->rng, 3) ? u32v(c) : vt_below(&c->rng, 4);
}

static void f_create(struct ctx *c, void *a)
{
	/* more than the driver allows (twice its largest frame) or the guest has */
	static const uint32_t huge[] = {
		2 * 1920 * 1080 * 4 + 1, 0x10000000, 0x80000000, 0xf0000000,
		0xffffffff,
	};
	struct v4l2_create_buffers *cb = a;

	/* few buffers, at most 16 MiB each: no memory pressure */
	cb->count = vt_one_in(&c->rng, 8) ? u32v(c) : vt_below(&c->rng, 4);
	cb->memory = memtype(c);
	f_format(c, &cb->format);
	switch (vt_below(&c->rng, 5)) {
	case 4:
		/* must be refused, never allocated (the log stays quiet) */
		cb->format.fmt.pix.sizeimage =
			huge[vt_below(&c->rng, VT_ARRAY_SIZE(huge))];
		break;
	case 0:
		cb->format.fmt.pix.sizeimage = vt_below(&c->rng, 16 << 20);
		break;
	case 1:
		cb->format.fmt.pix.sizeimage = 640 * 480 * 2 +
					       (int)vt_below(&c->rng, 3) - 1;
		break;
	default:
		/* what f_format() chose, capped */
		if (cb->format.fmt.pix.sizeimage > (16 << 20))
			cb->format.fmt.pix.sizeimage = 0;
		break;
	}
	cb->flags = vt_one_in(&c->rng, 4) ? u32v(c) : 0;
}

static void f_edid(struct ctx *c, void *a)
{
	struct v4l2_edid *e = a;

	e->pad = u32v(c);
	e->start_block = u32v(c);
	e->blocks = vt_one_in(&c->rng, 2) ? vt_below(&c->rng, 4) : u32v(c);
	e->edid = inner_ptr(c, e->blocks <= 256 ? e->blocks * 128 : 16);
}

static void f_random_bytes(struct ctx *c, void *a)
{
	uint64_t *p = a;
	unsigned int i;

	/* every 64-bit word is a non-canonical address: a pointer field
	 * that happens to be in there is invalid, never our memory */
	for (i = 0; i < 512; i++)
		p[i] = (vt_rand64(&c->rng) & 0x0000ffffffffffffull) |
		       0xa5a5000000000000ull;
	if (vt_one_in(&c->rng, 2))
		memset(a, 0, 64);
}

static const struct fz fzs[] = {
	{ "QUERYCAP", VIDIOC_QUERYCAP, f_none, E_NONE, 2 },
	{ "ENUM_FMT", VIDIOC_ENUM_FMT, f_fmtdesc, E_INVAL, 3 },
	{ "G_FMT", VIDIOC_G_FMT, f_format, E_FMT, 3 },
	{ "S_FMT", VIDIOC_S_FMT, f_format, E_FMT, 6 },
	{ "TRY_FMT", VIDIOC_TRY_FMT, f_format, E_FMT, 5 },
	{ "REQBUFS", VIDIOC_REQBUFS, f_reqbufs, E_BUFS, 5 },
	{ "QUERYBUF", VIDIOC_QUERYBUF, f_buffer, E_QBUF, 4 },
	{ "QBUF", VIDIOC_QBUF, f_buffer, E_QBUF, 6 },
	{ "DQBUF", VIDIOC_DQBUF, f_buffer, E_DQBUF, 5 },
	{ "EXPBUF", VIDIOC_EXPBUF, f_expbuf, E_BUFS, 3 },
	{ "STREAMON", VIDIOC_STREAMON, f_type, E_STREAM, 4 },
	{ "STREAMOFF", VIDIOC_STREAMOFF, f_type, E_STREAM, 4 },
	{ "G_PARM", VIDIOC_G_PARM, f_parm, E_INVAL, 2 },
	{ "S_PARM", VIDIOC_S_PARM, f_parm, E_BUSY, 3 },
	{ "ENUM_FRAMESIZES", VIDIOC_ENUM_FRAMESIZES, f_frmsize, E_INVAL, 2 },
	{ "ENUM_FRAMEINTERVALS", VIDIOC_ENUM_FRAMEINTERVALS, f_frmival,
	  E_INVAL, 2 },
	{ "ENUMINPUT", VIDIOC_ENUMINPUT, f_input, E_INVAL, 2 },
	{ "G_INPUT", VIDIOC_G_INPUT, f_none, E_NONE, 1 },
	{ "S_INPUT", VIDIOC_S_INPUT, f_u32, E_BUSY, 3 },
	{ "QUERYCTRL", VIDIOC_QUERYCTRL, f_queryctrl, E_INVAL, 3 },
	{ "QUERY_EXT_CTRL", VIDIOC_QUERY_EXT_CTRL, f_query_ext, E_INVAL, 3 },
	{ "QUERYMENU", VIDIOC_QUERYMENU, f_querymenu, E_INVAL, 3 },
	{ "G_CTRL", VIDIOC_G_CTRL, f_ctrl, E_CTRL, 3 },
	{ "S_CTRL", VIDIOC_S_CTRL, f_ctrl, E_CTRL, 4 },
	{ "G_EXT_CTRLS", VIDIOC_G_EXT_CTRLS, f_ext_ctrls, E_EXT, 3 },
	{ "S_EXT_CTRLS", VIDIOC_S_EXT_CTRLS, f_ext_ctrls, E_EXT, 4 },
	{ "TRY_EXT_CTRLS", VIDIOC_TRY_EXT_CTRLS, f_ext_ctrls, E_EXT, 3 },
	{ "SUBSCRIBE_EVENT", VIDIOC_SUBSCRIBE_EVENT, f_sub, E_SUB, 4 },
	{ "UNSUBSCRIBE_EVENT", VIDIOC_UNSUBSCRIBE_EVENT, f_sub, E_SUB, 3 },
	{ "DQEVENT", VIDIOC_DQEVENT, f_none, E_DQEV, 4 },
	{ "LOG_STATUS", VIDIOC_LOG_STATUS, f_none, E_NONE, 1 },
	{ "G_PRIORITY", VIDIOC_G_PRIORITY, f_none, E_NONE, 1 },
	{ "S_PRIORITY", VIDIOC_S_PRIORITY, f_u32, E_BUSY, 2 },
	{ "CREATE_BUFS", VIDIOC_CREATE_BUFS, f_create, E_BUFS, 4 },
	{ "PREPARE_BUF", VIDIOC_PREPARE_BUF, f_buffer, E_QBUF, 3 },
	/* known V4L2 ioctls vivpoll does not implement */
	{ "G_EDID (unsupported)", VIDIOC_G_EDID, f_edid, E_NOTTY, 1 },
	{ "G_SELECTION (unsupported)", VIDIOC_G_SELECTION, f_none, E_NOTTY, 1 },
	{ "ENUMSTD (unsupported)", VIDIOC_ENUMSTD, f_input, E_NOTTY, 1 },
	{ "G_TUNER (unsupported)", VIDIOC_G_TUNER, f_input, E_NOTTY, 1 },
	{ "QUERY_DV_TIMINGS (unsupported)", VIDIOC_QUERY_DV_TIMINGS, f_none,
	  E_NOTTY, 1 },
};
#define NFZ		VT_ARRAY_SIZE(fzs)
#define RANDOM_IDX	NFZ	/* histogram slot of the random numbers */

/* ---- one call ---------------------------------------------------------------- */

enum ptr_mode { P_VALID, P_NULL, P_KERNEL, P_NONCANON, P_GUARD, P_STRADDLE,
		P_RO };
static const char *const ptr_names[] = {
	"valid", "NULL", "kernel address", "non-canonical", "PROT_NONE page",
	"struct running into a PROT_NONE page", "read-only page",
};

static void note(struct stats *st, unsigned int *counter, const char *fmt, ...)
{
	va_list ap;

	(*counter)++;
	if (st->nmsg >= VT_ARRAY_SIZE(st->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(st->msg[st->nmsg++], sizeof(st->msg[0]), fmt, ap);
	va_end(ap);
}

/*
 * Is a process's report believable: magics in place, no more messages than
 * fit, no more calls counted than it was given?
 */
static bool stats_intact(const struct stats *st, uint64_t ncalls)
{
	unsigned int k, e;
	uint64_t n = 0;

	if (st->head != STATS_MAGIC || st->tail != STATS_MAGIC ||
	    st->nmsg > VT_ARRAY_SIZE(st->msg))
		return false;
	for (k = 0; k < VT_ARRAY_SIZE(st->calls); k++)
		for (e = 0; e < NERR; e++) {
			if (st->calls[k][e] > ncalls)
				return false;
			n += st->calls[k][e];
		}
	return n <= ncalls;
}

static bool err_in(int e, const int *set)
{
	for (; *set; set++)
		if (*set == e)
			return true;
	return false;
}

/* A random ioctl number that no VFS layer handles before the driver. */
static unsigned long random_req(struct ctx *c)
{
	for (;;) {
		unsigned long r;
		unsigned int type;

		if (vt_one_in(&c->rng, 2))
			r = _IOC(vt_below(&c->rng, 4), 'V',
				 vt_below(&c->rng, 256),
				 vt_below(&c->rng, 600));
		else
			r = vt_rand32(&c->rng);
		type = _IOC_TYPE(r);
		/* FIONBIO, FIOASYNC, FIOCLEX... ('T'), FIFREEZE, FITHAW,
		 * FS_IOC_* ('X', 'f', 0x94): handled by the VFS */
		if (type == 'T' || type == 'X' || type == 'f' || type == 0x94)
			continue;
		return r;
	}
}

static void close_dmabufs(struct ctx *c)
{
	while (c->ndmabufs)
		close(c->dmabufs[--c->ndmabufs]);
}

static void one_call(struct ctx *c, uint64_t n)
{
	struct stats *st = c->st;
	unsigned int w = vt_below(&c->rng, 100), idx, k, total = 0;
	enum ptr_mode pm = P_VALID;
	const struct fz *z = NULL;
	unsigned long req;
	size_t size, half;
	void *arg;
	int fd = c->fd[vt_below(&c->rng, FDS)], r, e;

	c->inner_bad = false;
	memset(c->arena, 0, 4096);
	if (w < 8) {
		idx = RANDOM_IDX;
		req = random_req(c);
		f_random_bytes(c, c->arena);
	} else {
		for (k = 0; k < NFZ; k++)
			total += fzs[k].weight;
		r = (int)vt_below(&c->rng, total);
		for (idx = 0; r >= (int)fzs[idx].weight; idx++)
			r -= fzs[idx].weight;
		z = &fzs[idx];
		req = z->req;
		z->fill(c, c->arena);
		/*
		 * Not DONE|LAST in a DQBUF argument: vb2_dqbuf() then marks
		 * the queue "last buffer dequeued" even if the call fails,
		 * and nothing but STREAMOFF clears that, not even close():
		 * a vb2 bug (see --probe-vb2) that would break the next user
		 * of the device, here the capture check at the end.
		 */
		if (req == VIDIOC_DQBUF)
			((struct v4l2_buffer *)c->arena)->flags &=
				~V4L2_BUF_FLAG_LAST;
	}
	size = _IOC_SIZE(req);
	k = vt_below(&c->rng, 100);
	if (_IOC_DIR(req) != _IOC_NONE && k < 16)
		pm = 1 + k % 6;
	switch (pm) {
	case P_VALID:
		arg = c->arena;
		break;
	case P_NULL:
		arg = NULL;
		break;
	case P_KERNEL:
		arg = (void *)0xffff888000001000ul;
		break;
	case P_NONCANON:
		arg = (void *)0xa5a5a5a5a5a5a5a0ul;
		break;
	case P_GUARD:
		arg = c->guard + PAGE;
		break;
	case P_STRADDLE:
		/* at most the guard's RW page before the PROT_NONE area */
		half = size < 2 ? 1 : size / 2 < PAGE ? size / 2 : PAGE;
		arg = c->guard + PAGE - half;
		memcpy(arg, c->arena, half);
		break;
	case P_RO:
	default:
		memcpy(c->ro, c->arena, size < PAGE ? size : PAGE);
		mprotect(c->ro, PAGE, PROT_READ);
		arg = c->ro;
		break;
	}
	snprintf(st->cur, sizeof(st->cur), "call %" PRIu64 ": %s (0x%08lx) "
		 "on fd %d, pointer %s%s", n, z ? z->name : "random number",
		 req, fd, ptr_names[pm], c->inner_bad ? ", bad inner pointer" :
		 "");
	r = ioctl(fd, req, arg);
	e = r < 0 ? errno : 0;
	if (pm == P_RO)
		mprotect(c->ro, PAGE, PROT_READ | PROT_WRITE);
	if (pm != P_VALID)
		st->bad_ptr_calls++;
	st->calls[idx][e < NERR ? e : NERR - 1]++;

	/* an exported dmabuf is ours to close */
	if (!r && req == VIDIOC_EXPBUF && pm == P_VALID) {
		int dfd = ((struct v4l2_exportbuffer *)arg)->fd;

		st->exported++;
		if (dfd > 2 && c->ndmabufs < 8)
			c->dmabufs[c->ndmabufs++] = dfd;
		else if (dfd > 2)
			close(dfd);
	}
	if (!z) {
		st->rnd_calls++;
		st->rnd_ok += !r;
		/* these would mean the device or fd went away */
		if (e == ENODEV || e == ENXIO || e == EBADF)
			note(st, &st->unexpected, "random ioctl 0x%08lx: %s",
			     req, vt_errname(e));
		return;
	}
	if (pm != P_VALID && pm != P_RO && pm != P_STRADDLE) {
		/* never success; EFAULT, or the ioctl's own error for a
		 * read-only one that failed before copying out */
		if (!r || (e != EFAULT && !(_IOC_DIR(req) == _IOC_READ &&
					    err_in(e, z->errs)) &&
			   e != ENOTTY))
			note(st, &st->unexpected, "%s with a %s pointer: %s",
			     z->name, ptr_names[pm], r ? vt_errname(e) :
			     "success");
		return;
	}
	/*
	 * Half readable (the core may copy in only the first fields) or
	 * read-only: the ioctl may run, but whatever it copies out faults,
	 * so it cannot succeed if it writes the argument back.
	 */
	if (pm != P_VALID && !r && (_IOC_DIR(req) & _IOC_READ)) {
		note(st, &st->unexpected, "%s with a %s pointer succeeded",
		     z->name, ptr_names[pm]);
		return;
	}
	if (r && !err_in(e, z->errs) &&
	    !(e == EFAULT && (pm != P_VALID || c->inner_bad))) {
		note(st, &st->unexpected, "%s: %s (%s pointer%s)", z->name,
		     vt_errname(e), ptr_names[pm],
		     c->inner_bad ? ", bad inner pointer" : "");
		return;
	}
	if (r || pm != P_VALID)
		return;
	/* a few replies that must be sane */
	if (req == VIDIOC_QUERYCAP &&
	    strcmp((char *)((struct v4l2_capability *)arg)->driver, "vivpoll"))
		note(st, &st->insane, "QUERYCAP: driver \"%.16s\"",
		     ((struct v4l2_capability *)arg)->driver);
	if (req == VIDIOC_G_PRIORITY && *(uint32_t *)arg > V4L2_PRIORITY_RECORD)
		note(st, &st->insane, "G_PRIORITY: %u", *(uint32_t *)arg);
	if (req == VIDIOC_G_INPUT && *(uint32_t *)arg > 1)
		note(st, &st->insane, "G_INPUT: %u", *(uint32_t *)arg);
	if (req == VIDIOC_S_INPUT && *(uint32_t *)arg > 1)
		note(st, &st->insane, "S_INPUT %u worked", *(uint32_t *)arg);
	if ((req == VIDIOC_G_FMT || req == VIDIOC_S_FMT ||
	     req == VIDIOC_TRY_FMT) &&
	    ((struct v4l2_format *)arg)->type == V4L2_BUF_TYPE_VIDEO_CAPTURE) {
		struct v4l2_pix_format *p = &((struct v4l2_format *)arg)->fmt.pix;

		if (p->width < 320 || p->width > 1920 || p->height < 240 ||
		    p->height > 1080 || !p->sizeimage ||
		    p->sizeimage != p->bytesperline * p->height)
			note(st, &st->insane, "%s: %ux%u bpl %u size %u",
			     z->name, p->width, p->height, p->bytesperline,
			     p->sizeimage);
	}
	if (req == VIDIOC_DQEVENT) {
		uint32_t t = ((struct v4l2_event *)arg)->type;

		if (t != V4L2_EVENT_CTRL && t != V4L2_EVENT_FRAME_SYNC &&
		    t != V4L2_EVENT_SOURCE_CHANGE)
			note(st, &st->insane, "DQEVENT: type %u", t);
	}
}

static void child_main(struct stats *st, uint64_t seed, uint64_t ncalls,
		       uint64_t deadline, struct vt_dev *devs, int ndevs,
		       unsigned int id)
{
	struct ctx c;
	uint64_t n;
	int i;

	memset(&c, 0, sizeof(c));
	c.st = st;
	c.rng.s = seed;
	c.arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c.side = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c.guard = mmap(NULL, PAGE + UPTR_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c.ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c.uptr = mmap(NULL, UPTR_LEN, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c.arena == MAP_FAILED || c.side == MAP_FAILED ||
	    c.guard == MAP_FAILED || c.ro == MAP_FAILED ||
	    c.uptr == MAP_FAILED ||
	    mprotect(c.guard + PAGE, UPTR_LEN, PROT_NONE))
		_exit(3);
	for (i = 0; i < FDS; i++) {
		const char *path = devs[(id + i) % ndevs].path;

		c.fd[i] = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (c.fd[i] < 0) {
			note(st, &st->unexpected, "open %.31s: %s", path,
			     vt_errname(errno));
			_exit(1);
		}
	}
	for (n = 0; n < ncalls && vp_now_ns() < deadline; n++) {
		one_call(&c, n);
		if (n % 64 == 63)
			close_dmabufs(&c);
	}
	close_dmabufs(&c);
	for (i = 0; i < FDS; i++)
		close(c.fd[i]);
	snprintf(st->cur, sizeof(st->cur), "done after %" PRIu64 " calls", n);
	_exit(0);
}

/* ---- probes of known vb2 behaviour (--probe-vb2), notes only ---------------- */

static int probe_stream(int fd, unsigned int nqueue)
{
	struct v4l2_requestbuffers rb = {
		.count = 4, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	unsigned int i;

	if (ioctl(fd, VIDIOC_REQBUFS, &rb))
		return -errno;
	for (i = 0; i < nqueue && i < rb.count; i++) {
		struct v4l2_buffer b = {
			.index = i, .type = rb.type, .memory = rb.memory,
		};

		if (ioctl(fd, VIDIOC_QBUF, &b))
			return -errno;
	}
	return ioctl(fd, VIDIOC_STREAMON, &type) ? -errno : 0;
}

/*
 * 6.1's get_vaddr_frames() pins USERPTR memory with FOLL_FORCE | FOLL_WRITE,
 * which GUP grants on a private mapping whatever its protection: a buffer
 * in PROT_NONE memory is queued and filled. 6.12's no longer forces, and
 * QBUF fails with EFAULT.
 */
static void probe_prot_none(const char *path)
{
	struct v4l2_requestbuffers rb = {
		.count = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_USERPTR,
	};
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_USERPTR,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE, fd, r, dq = -1;
	struct v4l2_format fmt = { .type = type };
	struct pollfd p = { .events = POLLIN };
	uint8_t *mem = MAP_FAILED;
	size_t len, i, nonzero = 0;

	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, VIDIOC_G_FMT, &fmt) ||
	    ioctl(fd, VIDIOC_REQBUFS, &rb)) {
		vt_diag("probe: cannot set up USERPTR streaming");
		goto out;
	}
	len = (fmt.fmt.pix.sizeimage + PAGE - 1) & ~(size_t)(PAGE - 1);
	mem = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		goto out;
	b.m.userptr = (unsigned long)mem;
	b.length = len;
	r = ioctl(fd, VIDIOC_QBUF, &b) ? errno : 0;
	if (!r && !ioctl(fd, VIDIOC_STREAMON, &type)) {
		p.fd = fd;
		poll(&p, 1, 2000);
		dq = ioctl(fd, VIDIOC_DQBUF, &b) ? errno : 0;
		ioctl(fd, VIDIOC_STREAMOFF, &type);
	}
	/* what the engine wrote, read after lifting the protection */
	mprotect(mem, len, PROT_READ);
	for (i = 0; i < len; i++)
		nonzero += mem[i] != 0;
	vt_diag("probe: QBUF of a USERPTR buffer in PROT_NONE memory: %s%s%s; "
		"%zu of its %zu bytes written", r ? vt_errname(r) : "queued",
		dq < 0 ? "" : ", DQBUF ", dq < 0 ? "" :
		dq ? vt_errname(dq) : "ok", nonzero, len);
out:
	if (mem != MAP_FAILED)
		munmap(mem, len);
	if (fd >= 0)
		close(fd);
}

/*
 * CREATE_BUFS of a 2 GiB buffer, more than the guest's RAM: vivpoll
 * refuses it (EINVAL) before vb2 allocates; a driver without a limit
 * makes vmalloc() complain in the kernel log.
 */
static void probe_huge_alloc(const char *path)
{
	struct v4l2_create_buffers cb;
	char *log, *p;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC), r;

	if (fd < 0)
		return;
	memset(&cb, 0, sizeof(cb));
	cb.count = 1;
	cb.memory = V4L2_MEMORY_MMAP;
	cb.format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ioctl(fd, VIDIOC_G_FMT, &cb.format);
	cb.format.fmt.pix.sizeimage = 0x80000000;
	vt_klog_mark("86-ioctl-fuzz huge allocation probe");
	r = ioctl(fd, VIDIOC_CREATE_BUFS, &cb);
	vt_diag("probe: CREATE_BUFS of one 2 GiB buffer: %s",
		r ? vt_errname(errno) : "success");
	log = vt_klog_since_mark();
	p = log ? strstr(log, "vmalloc") : NULL;
	if (p) {
		while (p > log && p[-1] != '\n')
			p--;
		vt_diag("probe: the kernel log says:");
		vt_diag_lines(p, 8);
	} else {
		vt_diag("probe: nothing in the kernel log");
	}
	free(log);
	close(fd);
}

/*
 * vb2_dqbuf() sets q->last_buffer_dequeued from the flags of the caller's
 * struct even when the dequeue failed: a non-blocking DQBUF that finds no
 * frame (EAGAIN) with DONE|LAST in its argument ends the stream. Only
 * STREAMOFF clears it, not the release of the queue on close(): the next
 * user of the device, here read(), gets EPIPE.
 */
static void probe_last_flag(const char *path)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC), r, i;
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	static char buf[1920 * 1080 * 4];
	struct v4l2_buffer b;
	ssize_t n;

	/* streaming with no buffer queued: a DQBUF finds nothing */
	if (fd < 0 || probe_stream(fd, 0)) {
		vt_diag("probe: cannot stream");
		goto out;
	}
	memset(&b, 0, sizeof(b));
	b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b.memory = V4L2_MEMORY_MMAP;
	b.flags = V4L2_BUF_FLAG_DONE | V4L2_BUF_FLAG_LAST;
	r = ioctl(fd, VIDIOC_DQBUF, &b) ? errno : 0;
	for (i = 0; i < 4; i++) {
		memset(&b, 0, sizeof(b));
		b.index = i;
		b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b.memory = V4L2_MEMORY_MMAP;
		ioctl(fd, VIDIOC_QBUF, &b);
	}
	vp_sleep_ms(500);	/* frames are done now */
	for (i = 0; i < 2; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int pr = poll(&p, 1, 2000);

		memset(&b, 0, sizeof(b));
		b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b.memory = V4L2_MEMORY_MMAP;
		vt_diag("probe: after a DQBUF with DONE|LAST in its argument "
			"that failed with %s: poll %d (revents 0x%x), DQBUF %s",
			vt_errname(r), pr, p.revents,
			ioctl(fd, VIDIOC_DQBUF, &b) ? vt_errname(errno) : "ok");
	}
	/* close without STREAMOFF, then another user reads */
	close(fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	vt_diag("probe: closed without STREAMOFF; then a blocking read() on a "
		"new fd: %s", n < 0 ? vt_errname(errno) : "data");
	close(fd);
	/* clean up: STREAMOFF is what resets the flag */
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && !probe_stream(fd, 1))
		ioctl(fd, VIDIOC_STREAMOFF, &type);
	if (fd >= 0) {
		close(fd);
		fd = open(path, O_RDWR | O_CLOEXEC);
		n = read(fd, buf, sizeof(buf));
		vt_diag("probe: after a STREAMON/STREAMOFF, read(): %s",
			n < 0 ? vt_errname(errno) : "data");
	}
out:
	if (fd >= 0)
		close(fd);
}

/*
 * vb2_fop_read() makes the caller the queue owner whenever the read()
 * emulator is active, even when its read() failed with EBUSY. During the
 * first read() of A the owner is not set yet (that happens when it
 * returns): a read() of B then fails but takes the queue, and B's close()
 * releases it under A, whose read() fails with EINVAL.
 */
static void probe_read_owner(const char *path)
{
	static char buf[1920 * 1080 * 4];
	struct v4l2_format fmt;
	int fd = open(path, O_RDWR | O_CLOEXEC), st, fd2, i;
	char spath[64], stat[256], *p;
	ssize_t n;
	pid_t pid;

	if (fd < 0)
		return;
	/* a big frame: the first one takes a while to fill */
	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ioctl(fd, VIDIOC_G_FMT, &fmt);
	fmt.fmt.pix.width = 1920;
	fmt.fmt.pix.height = 1080;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_XBGR32;
	ioctl(fd, VIDIOC_S_FMT, &fmt);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		n = read(fd, buf, sizeof(buf));
		_exit(n < 0 ? errno : 0);
	}
	close(fd);
	snprintf(spath, sizeof(spath), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 5000; i++)	/* until A sleeps in read() */
		if (vt_read_file(spath, stat, sizeof(stat)) > 0 &&
		    (p = strrchr(stat, ')')) && p[2] == 'S')
			break;
	fd2 = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	n = read(fd2, buf, sizeof(buf));
	close(fd2);
	waitpid(pid, &st, 0);
	vt_diag("probe: read() of B during the first read() of A: %s; after "
		"B's close, A's read() returned %s",
		n < 0 ? vt_errname(errno) : "data",
		WIFEXITED(st) ? vt_errname(WEXITSTATUS(st)) : "?");
}

/* ---- the parent ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	unsigned int scale = vt_scale(), i, k, unexpected = 0, insane = 0;
	unsigned long ncalls = 20000 * scale, nprocs = 4, secs = 20 * scale;
	bool probe = false;
	const struct vt_opt opts[] = {
		{ "calls", 1, 100000000, &ncalls, NULL },
		{ "procs", 1, NPROC_MAX, &nprocs, NULL },
		{ "secs", 1, 3600, &secs, NULL },
		{ "probe-vb2", 0, 0, NULL, &probe },
		{ NULL, 0, 0, NULL, NULL },
	};
	uint64_t seed = vt_default_seed(), t0, deadline, done = 0, ok = 0;
	uint64_t rnd = 0, rnd_ok = 0, badp = 0, exported = 0;
	struct vt_dev devs[VT_MAX_DEVS];
	pid_t pids[NPROC_MAX];
	int status[NPROC_MAX], ndevs, e;
	struct stats *st;
	char why[1200], st_s[64];
	bool intact[NPROC_MAX];
	struct vt_snap snap;

	vt_options(argc, argv, opts, &seed);
	vt_begin("86-ioctl-fuzz: random arguments to every V4L2 ioctl");
	ndevs = vt_devices(devs, VT_MAX_DEVS);
	vt_plan(1 + 5 + vt_health_plan(ndevs) + 1);
	if (!vt_ok(ndevs > 0, "a vivpoll device exists", "none found"))
		return vt_end();
	if (probe) {
		probe_last_flag(devs[0].path);
		probe_read_owner(devs[0].path);
		probe_huge_alloc(devs[0].path);
		probe_prot_none(devs[0].path);
	}
	vt_diag("seed %" PRIu64 " (--seed to repeat a process's calls), scale "
		"%u: %lu calls by %lu processes with %d fds each, at most %lu s",
		seed, scale, ncalls, nprocs, FDS, secs);
	vt_klog_mark(argv[0]);
	vt_kmemleak_begin();
	vt_snapshot(&snap);

	st = vt_shared(nprocs * sizeof(*st));
	for (i = 0; i < nprocs; i++)
		st[i].head = st[i].tail = STATS_MAGIC;
	t0 = vp_now_ns();
	deadline = t0 + secs * 1000000000ull;
	fflush(stdout);
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			child_main(&st[i], seed + i * 0x9e3779b9ull,
				   ncalls / nprocs + (i < ncalls % nprocs),
				   deadline, devs, ndevs, i);
	}
	vt_reap(pids, status, nprocs, deadline + 30000000000ull * scale);

	/* a report the kernel scribbled on is not used, and fails the run */
	why[0] = 0;
	for (i = 0; i < nprocs; i++) {
		intact[i] = stats_intact(&st[i], ncalls / nprocs + 1);
		if (!intact[i])
			vt_appendf(why, sizeof(why), "process %u (seed %"
				PRIu64 "): head 0x%016" PRIx64 ", %u messages; ",
				i, (uint64_t)(seed + i * 0x9e3779b9ull),
				st[i].head, st[i].nmsg);
	}
	vt_ok(!*why, "every fuzzing process's report is intact (nothing "
	      "wrote into memory the fuzzer did not pass to the kernel)",
	      "%s", why);

	why[0] = 0;
	for (i = 0; i < nprocs; i++) {
		if (status[i] >= 0 && WIFEXITED(status[i]) &&
		    !WEXITSTATUS(status[i]))
			continue;
		vt_appendf(why, sizeof(why), "process %u (seed %" PRIu64
			"): %s in %.*s; ", i,
			(uint64_t)(seed + i * 0x9e3779b9ull),
			vt_status_str(status[i], st_s, sizeof(st_s)),
			intact[i] ? (int)sizeof(st[i].cur) : 0, st[i].cur);
	}
	/* the histogram, one line per ioctl */
	for (k = 0; k <= NFZ; k++) {
		char line[400];
		size_t l = 0;
		uint64_t calls = 0, cnt[NERR] = { 0 };

		for (i = 0; i < nprocs; i++)
			for (e = 0; e < NERR && intact[i]; e++)
				cnt[e] += st[i].calls[k][e];
		for (e = 0; e < NERR; e++)
			calls += cnt[e];
		done += calls;
		ok += cnt[0];
		l += snprintf(line + l, sizeof(line) - l, "%-30s %6" PRIu64
			      " calls:", k < NFZ ? fzs[k].name :
			      "random numbers", calls);
		for (e = 0; e < NERR && l < sizeof(line); e++)
			if (cnt[e])
				l += snprintf(line + l, sizeof(line) - l,
					      " %s %" PRIu64, e ?
					      vt_errname(e) : "ok", cnt[e]);
		vt_diag("%s", line);
	}
	for (i = 0; i < nprocs; i++) {
		unsigned int m;

		if (!intact[i])
			continue;
		unexpected += st[i].unexpected;
		insane += st[i].insane;
		rnd += st[i].rnd_calls;
		rnd_ok += st[i].rnd_ok;
		badp += st[i].bad_ptr_calls;
		exported += st[i].exported;
		for (m = 0; m < st[i].nmsg; m++)
			vt_diag("process %u: %.*s", i,
				(int)sizeof(st[i].msg[m]), st[i].msg[m]);
	}
	vt_diag("%" PRIu64 " fuzzed calls done (%" PRIu64 " succeeded) in %.1f "
		"s by %lu processes: %" PRIu64 " with a bad argument pointer, %"
		PRIu64 " random ioctl numbers (%" PRIu64 " succeeded), %" PRIu64
		" dmabufs exported", done, ok, (vp_now_ns() - t0) / 1e9,
		nprocs, badp, rnd, rnd_ok, exported);

	vt_ok(!*why, "every fuzzing process exited normally", "%s", why);
	snprintf(why, sizeof(why), "all %lu fuzzed calls were made, or at "
		 "least %lu before the time budget ran out", ncalls,
		 (ncalls + 1) / 2);
	vt_ok(done >= ncalls || (vp_now_ns() >= deadline &&
				 done >= (ncalls + 1) / 2), why,
	      "%" PRIu64 " calls in %.1f s (time budget %lu s)", done,
	      (vp_now_ns() - t0) / 1e9, secs);
	why[0] = 0;
	for (i = 0; i < nprocs; i++) {
		unsigned int m;

		for (m = 0; intact[i] && m < st[i].nmsg; m++)
			vt_appendf(why, sizeof(why), "[%u] %.*s; ", i,
				(int)sizeof(st[i].msg[m]), st[i].msg[m]);
	}
	vt_ok(!unexpected, "every call failed with an errno that ioctl may "
	      "return, and no bad pointer was accepted", "%u unexpected; %s",
	      unexpected, why);
	vt_ok(!insane, "every checked reply is sane", "%u insane; %s", insane,
	      why);
	vt_health(&snap, NULL, ndevs);
	vt_restore_defaults();
	return vt_end();
}
