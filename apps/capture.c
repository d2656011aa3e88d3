// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-capture: capture frames through libv4l2 (v4l2_open, v4l2_ioctl,
 * v4l2_mmap, v4l2_read), either streaming with mmap buffers and
 * poll(POLLIN) + DQBUF, or with read(); convert selected frames to RGB24
 * with libv4lconvert and write them as PNG files. Reports frames, drops
 * (sequence gaps, and the driver's drop counter) and the achieved rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libv4l2.h>
#include <libv4lconvert.h>

#include "common.h"
#include "png-write.h"

#define MAX_BUFFERS		8
#define FRAME_TIMEOUT_MS	3000

enum io_method { IO_MMAP, IO_READ };

struct opts {
	char dev[64];
	enum io_method io;
	unsigned long count;
	unsigned int width, height;
	uint32_t fourcc;
	unsigned long fps;		/* 0: leave as is */
	const char *out;		/* NULL: no PNGs */
	unsigned long png_every;	/* 0: unused */
	unsigned long png_n;		/* 0: unused */
	unsigned long buffers;
	bool quiet;
};

struct buffer {
	void *start;
	size_t length;
};

struct capture {
	struct opts *o;
	int fd;
	struct v4l2_format fmt;
	double fps;
	struct v4lconvert_data *conv;
	uint8_t *rgb;
	size_t rgb_size;
	struct buffer bufs[MAX_BUFFERS];
	unsigned int nbufs;
	uint8_t *readbuf;

	/* statistics */
	unsigned long frames;
	unsigned long gaps;		/* frames missing by sequence */
	unsigned long pngs;
	bool have_seq;
	uint32_t first_seq, last_seq;
	uint64_t first_ns, last_ns;	/* buffer or arrival timestamps */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vivpoll-capture [options]\n"
"Capture frames via libv4l2 and write selected ones as PNG (RGB24 through\n"
"libv4lconvert).\n"
"\n"
"  -d, --device DEV      video device (path or number; default: first vivpoll)\n"
"  -i, --io METHOD       mmap (poll(POLLIN) + DQBUF, default) or read\n"
"  -n, --count N         frames to capture (default 30)\n"
"  -s, --size WxH        frame size (default 640x480)\n"
"  -f, --format FOURCC   pixel format (default YUYV)\n"
"  -r, --fps N           frame rate via VIDIOC_S_PARM (default: unchanged)\n"
"  -o, --out DIR         write PNG files into DIR (created if missing)\n"
"  -e, --png-every K     write every K-th frame (frames 0, K, 2K, ...)\n"
"  -p, --png N           write N frames spread evenly, the last one included\n"
"                        (default with --out: 1, the last frame)\n"
"  -b, --buffers N       mmap buffers (2..%d, default 4)\n"
"  -q, --quiet           no per-frame output\n"
"  -h, --help            this text\n"
"\n"
"Prints one 'png: PATH' line per file written and a summary line\n"
"'frames=N drops=D driver_drops=X rate=R fps'.\n"
"Exit status: 0 ok, 1 error or fewer frames than requested, 2 bad usage.\n",
		MAX_BUFFERS);
}

static void bad_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "vivpoll-capture: %s '%s'\n"
		"Try 'vivpoll-capture --help'.\n", msg, arg);
	exit(VP_EXIT_USAGE);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "io", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "fps", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "png-every", required_argument, NULL, 'e' },
		{ "png", required_argument, NULL, 'p' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:n:s:f:r:o:e:p:b:qh", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			snprintf(o->dev, sizeof(o->dev), "%s", optarg);
			break;
		case 'i':
			if (!strcmp(optarg, "mmap"))
				o->io = IO_MMAP;
			else if (!strcmp(optarg, "read"))
				o->io = IO_READ;
			else
				bad_usage("--io must be mmap or read, not",
					  optarg);
			break;
		case 'n':
			if (vp_parse_uint(optarg, 1, 1000000, &o->count))
				bad_usage("--count needs a number >= 1, not",
					  optarg);
			break;
		case 's':
			if (vp_parse_size(optarg, &o->width, &o->height))
				bad_usage("--size needs WxH, not", optarg);
			break;
		case 'f':
			if (vp_parse_fourcc(optarg, &o->fourcc))
				bad_usage("--format needs a fourcc, not",
					  optarg);
			break;
		case 'r':
			if (vp_parse_uint(optarg, 1, 1000, &o->fps))
				bad_usage("--fps needs a number >= 1, not",
					  optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'e':
			if (vp_parse_uint(optarg, 1, 1000000, &o->png_every))
				bad_usage("--png-every needs a number >= 1, "
					  "not", optarg);
			break;
		case 'p':
			if (vp_parse_uint(optarg, 1, 1000000, &o->png_n))
				bad_usage("--png needs a number >= 1, not",
					  optarg);
			break;
		case 'b':
			if (vp_parse_uint(optarg, 2, MAX_BUFFERS, &o->buffers))
				bad_usage("--buffers needs 2..8, not", optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			bad_usage("missing argument for", argv[optind - 1]);
			break;
		default:
			bad_usage("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument", argv[optind]);
	if (o->png_every && o->png_n)
		bad_usage("use either --png-every or --png, not both", "");
	if ((o->png_every || o->png_n) && !o->out)
		bad_usage("--png/--png-every need --out", "");
	if (o->out && !o->png_every && !o->png_n)
		o->png_n = 1;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = v4l2_ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r;
}

/* Is frame index i (0-based) one of the PNG frames? */
static bool png_selected(const struct opts *o, unsigned long i)
{
	if (!o->out)
		return false;
	if (o->png_every)
		return i % o->png_every == 0;
	/* N evenly spread frames, the last included */
	return (i + 1) * o->png_n / o->count > i * o->png_n / o->count;
}

static int write_png(struct capture *c, const uint8_t *data, size_t size,
		     unsigned long id)
{
	struct v4l2_format dst = c->fmt;
	const struct v4l2_pix_format *pix = &c->fmt.fmt.pix;
	char path[4096], err[256];
	const uint8_t *rgb = c->rgb;
	size_t stride = (size_t)pix->width * 3;
	int r;

	if (pix->pixelformat == V4L2_PIX_FMT_RGB24) {
		if (size < (size_t)pix->bytesperline * pix->height) {
			fprintf(stderr, "vivpoll-capture: short frame (%zu "
				"bytes)\n", size);
			return -1;
		}
		rgb = data;
		stride = pix->bytesperline;
	} else {
		dst.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
		dst.fmt.pix.bytesperline = pix->width * 3;
		dst.fmt.pix.sizeimage = c->rgb_size;
		r = v4lconvert_convert(c->conv, &c->fmt, &dst,
				       (unsigned char *)data, (int)size,
				       c->rgb, (int)c->rgb_size);
		if (r < 0) {
			fprintf(stderr, "vivpoll-capture: conversion to RGB24 "
				"failed: %s\n",
				v4lconvert_get_error_message(c->conv));
			return -1;
		}
	}
	snprintf(path, sizeof(path), "%s/frame-%06lu.png", c->o->out, id);
	if (vp_png_write(path, rgb, pix->width, pix->height, stride, err,
			 sizeof(err))) {
		fprintf(stderr, "vivpoll-capture: %s\n", err);
		return -1;
	}
	c->pngs++;
	printf("png: %s\n", path);
	return 0;
}

/* Account for one frame; seq < 0: no sequence number (read()). */
static int got_frame(struct capture *c, const uint8_t *data, size_t size,
		     int64_t seq, uint64_t ts_ns)
{
	unsigned long i = c->frames;

	if (seq >= 0) {
		if (c->have_seq && (uint32_t)seq > c->last_seq + 1)
			c->gaps += (uint32_t)seq - c->last_seq - 1;
		if (!c->have_seq)
			c->first_seq = (uint32_t)seq;
		c->have_seq = true;
		c->last_seq = (uint32_t)seq;
	}
	if (!i)
		c->first_ns = ts_ns;
	c->last_ns = ts_ns;
	c->frames++;
	if (!c->o->quiet)
		printf("frame %lu: seq=%" PRId64 " bytes=%zu ts=%.6f\n", i,
		       seq, size, ts_ns / 1e9);
	if (png_selected(c->o, i))
		return write_png(c, data, size, seq >= 0 ? (unsigned long)seq :
				 i);
	return 0;
}

static int wait_readable(struct capture *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, FRAME_TIMEOUT_MS);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		fprintf(stderr, "vivpoll-capture: poll: %s\n",
			strerror(errno));
		return -1;
	}
	if (!r) {
		fprintf(stderr, "vivpoll-capture: no frame within %d ms\n",
			FRAME_TIMEOUT_MS);
		return -1;
	}
	if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
		fprintf(stderr, "vivpoll-capture: poll reported 0x%x\n",
			p.revents);
		return -1;
	}
	return 0;
}

static int capture_mmap(struct capture *c)
{
	struct v4l2_requestbuffers rb;
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_buffer b;
	unsigned int i;
	int ret = -1;

	memset(&rb, 0, sizeof(rb));
	rb.count = c->o->buffers;
	rb.type = type;
	rb.memory = V4L2_MEMORY_MMAP;
	if (xioctl(c->fd, VIDIOC_REQBUFS, &rb) < 0 || rb.count < 2) {
		fprintf(stderr, "vivpoll-capture: VIDIOC_REQBUFS: %s\n",
			rb.count < 2 ? "too few buffers" : strerror(errno));
		return -1;
	}
	c->nbufs = rb.count > MAX_BUFFERS ? MAX_BUFFERS : rb.count;
	for (i = 0; i < c->nbufs; i++) {
		memset(&b, 0, sizeof(b));
		b.type = type;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		if (xioctl(c->fd, VIDIOC_QUERYBUF, &b) < 0) {
			fprintf(stderr, "vivpoll-capture: VIDIOC_QUERYBUF: "
				"%s\n", strerror(errno));
			goto out;
		}
		c->bufs[i].length = b.length;
		c->bufs[i].start = v4l2_mmap(NULL, b.length,
					     PROT_READ | PROT_WRITE,
					     MAP_SHARED, c->fd, b.m.offset);
		if (c->bufs[i].start == MAP_FAILED) {
			c->bufs[i].start = NULL;
			fprintf(stderr, "vivpoll-capture: mmap: %s\n",
				strerror(errno));
			goto out;
		}
		if (xioctl(c->fd, VIDIOC_QBUF, &b) < 0) {
			fprintf(stderr, "vivpoll-capture: VIDIOC_QBUF: %s\n",
				strerror(errno));
			goto out;
		}
	}
	if (xioctl(c->fd, VIDIOC_STREAMON, &type) < 0) {
		fprintf(stderr, "vivpoll-capture: VIDIOC_STREAMON: %s\n",
			strerror(errno));
		goto out;
	}
	while (c->frames < c->o->count) {
		if (wait_readable(c))
			goto off;
		memset(&b, 0, sizeof(b));
		b.type = type;
		b.memory = V4L2_MEMORY_MMAP;
		if (xioctl(c->fd, VIDIOC_DQBUF, &b) < 0) {
			if (errno == EAGAIN)
				continue;
			fprintf(stderr, "vivpoll-capture: VIDIOC_DQBUF: %s\n",
				strerror(errno));
			goto off;
		}
		if (b.index >= c->nbufs) {
			fprintf(stderr, "vivpoll-capture: bad buffer index\n");
			goto off;
		}
		if (!(b.flags & V4L2_BUF_FLAG_ERROR) &&
		    got_frame(c, c->bufs[b.index].start, b.bytesused,
			      b.sequence,
			      (uint64_t)b.timestamp.tv_sec * 1000000000ull +
			      (uint64_t)b.timestamp.tv_usec * 1000ull))
			goto off;
		if (xioctl(c->fd, VIDIOC_QBUF, &b) < 0) {
			fprintf(stderr, "vivpoll-capture: VIDIOC_QBUF: %s\n",
				strerror(errno));
			goto off;
		}
	}
	ret = 0;
off:
	if (xioctl(c->fd, VIDIOC_STREAMOFF, &type) < 0) {
		fprintf(stderr, "vivpoll-capture: VIDIOC_STREAMOFF: %s\n",
			strerror(errno));
		ret = -1;
	}
out:
	for (i = 0; i < c->nbufs; i++)
		if (c->bufs[i].start)
			v4l2_munmap(c->bufs[i].start, c->bufs[i].length);
	memset(&rb, 0, sizeof(rb));
	rb.type = type;
	rb.memory = V4L2_MEMORY_MMAP;
	xioctl(c->fd, VIDIOC_REQBUFS, &rb);
	return ret;
}

static int capture_read(struct capture *c)
{
	size_t size = c->fmt.fmt.pix.sizeimage;
	ssize_t n;

	c->readbuf = malloc(size);
	if (!c->readbuf) {
		fprintf(stderr, "vivpoll-capture: out of memory\n");
		return -1;
	}
	while (c->frames < c->o->count) {
		/* poll(POLLIN) first: it also starts vb2's read emulation */
		if (wait_readable(c))
			return -1;
		n = v4l2_read(c->fd, c->readbuf, size);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "vivpoll-capture: read: %s\n",
				strerror(errno));
			return -1;
		}
		if ((size_t)n != size) {
			fprintf(stderr, "vivpoll-capture: read returned %zd "
				"bytes, expected a full frame of %zu\n", n,
				size);
			return -1;
		}
		if (got_frame(c, c->readbuf, (size_t)n, -1, vp_now_ns()))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.io = IO_MMAP, .count = 30, .width = 640, .height = 480,
		.fourcc = V4L2_PIX_FMT_YUYV, .buffers = 4,
	};
	struct capture c = { .o = &o, .fd = -1 };
	struct v4l2_capability cap;
	char dev[64], fcc[8], fcc2[8];
	int64_t drops0 = -1, drops1 = -1;
	double rate = 0;
	int r;

	parse_args(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!o.dev[0]) {
		if (vp_find_device(dev, sizeof(dev))) {
			fprintf(stderr, "vivpoll-capture: no vivpoll device "
				"found\n");
			return 1;
		}
	} else if (o.dev[0] >= '0' && o.dev[0] <= '9') {
		snprintf(dev, sizeof(dev), "/dev/video%.50s", o.dev);
	} else {
		snprintf(dev, sizeof(dev), "%s", o.dev);
	}
	if (o.out && mkdir(o.out, 0755) && errno != EEXIST) {
		fprintf(stderr, "vivpoll-capture: mkdir %s: %s\n", o.out,
			strerror(errno));
		return 1;
	}

	c.fd = v4l2_open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c.fd < 0) {
		fprintf(stderr, "vivpoll-capture: %s: %s\n", dev,
			strerror(errno));
		return 1;
	}
	memset(&cap, 0, sizeof(cap));
	if (xioctl(c.fd, VIDIOC_QUERYCAP, &cap) < 0) {
		fprintf(stderr, "vivpoll-capture: %s: not a V4L2 device\n",
			dev);
		return 1;
	}
	/* through libv4l2, so that it knows the format it hands out */
	r = vp_set_format(c.fd, o.width, o.height, o.fourcc, &c.fmt,
			  v4l2_ioctl);
	if (r) {
		fprintf(stderr, "vivpoll-capture: %s does not do %s %ux%u "
			"(got %s %ux%u): %s\n", dev,
			vp_fourcc_str(o.fourcc, fcc), o.width, o.height,
			vp_fourcc_str(c.fmt.fmt.pix.pixelformat, fcc2),
			c.fmt.fmt.pix.width, c.fmt.fmt.pix.height,
			strerror(-r));
		return 1;
	}
	r = o.fps ? vp_set_fps(c.fd, o.fps, &c.fps, v4l2_ioctl) :
		    vp_get_fps(c.fd, &c.fps, v4l2_ioctl);
	if (r) {
		fprintf(stderr, "vivpoll-capture: VIDIOC_%s_PARM: %s\n",
			o.fps ? "S" : "G", strerror(-r));
		return 1;
	}

	printf("device: %s (%s, %s) format: %s %ux%u bytesperline=%u "
	       "sizeimage=%u fps=%.3f io=%s\n", dev, cap.card, cap.bus_info,
	       vp_fourcc_str(c.fmt.fmt.pix.pixelformat, fcc),
	       c.fmt.fmt.pix.width, c.fmt.fmt.pix.height,
	       c.fmt.fmt.pix.bytesperline, c.fmt.fmt.pix.sizeimage, c.fps,
	       o.io == IO_MMAP ? "mmap" : "read");

	if (o.out && c.fmt.fmt.pix.pixelformat != V4L2_PIX_FMT_RGB24) {
		c.conv = v4lconvert_create(c.fd);
		c.rgb_size = (size_t)o.width * o.height * 3;
		c.rgb = malloc(c.rgb_size);
		if (!c.conv || !c.rgb) {
			fprintf(stderr, "vivpoll-capture: libv4lconvert "
				"setup failed\n");
			return 1;
		}
	}

	if (vp_ctrl_get64(c.fd, VIVPOLL_CID_DROPS, &drops0))
		drops0 = -1;
	r = o.io == IO_MMAP ? capture_mmap(&c) : capture_read(&c);
	if (drops0 >= 0 && vp_ctrl_get64(c.fd, VIVPOLL_CID_DROPS, &drops1))
		drops1 = -1;

	if (c.frames > 1 && c.last_ns > c.first_ns)
		rate = (c.frames - 1) / ((c.last_ns - c.first_ns) / 1e9);
	printf("frames=%lu drops=%lu driver_drops=%" PRId64 " rate=%.2f fps "
	       "configured=%.2f fps pngs=%lu", c.frames, c.gaps,
	       drops0 >= 0 && drops1 >= 0 ? drops1 - drops0 : (int64_t)-1,
	       rate, c.fps, c.pngs);
	if (c.have_seq)
		printf(" seq=%u..%u", c.first_seq, c.last_seq);
	printf("\n");

	if (c.conv)
		v4lconvert_destroy(c.conv);
	free(c.rgb);
	free(c.readbuf);
	v4l2_close(c.fd);
	if (r || c.frames < o.count) {
		fprintf(stderr, "vivpoll-capture: FAILED after %lu of %lu "
			"frames\n", c.frames, o.count);
		return 1;
	}
	return 0;
}
