// SPDX-License-Identifier: GPL-2.0
/*
 * 42-sequence: sequence numbers, timestamps and drops tell the truth.
 *
 * - A consumer that holds every buffer for N frame intervals and then
 *   queues them again sees the sequence jump by about N, and the "Frames
 *   Dropped" control grows by exactly the gap.
 * - An engine that cannot keep up (1920x1080 XBGR32, the Noise pattern
 *   rendered every frame, at 60 fps: far beyond an emulated CPU) must not
 *   hide it: every buffer's timestamp is the first one's plus (sequence
 *   difference) x interval, and the frame slots (frames plus drops) follow
 *   the wall clock, one per interval.
 * - As a sensor exposes its first frame for one interval, the first frame
 *   is done one interval after STREAMON, not at once: a non-blocking
 *   DQBUF or read() right after the start finds nothing (v4l2-compliance's
 *   read/write test compares two such reads), and the first timestamp is
 *   one interval after STREAMON: taken when the frame is done, so the
 *   buffers say V4L2_BUF_FLAG_TSTAMP_SRC_EOF, not start of exposure.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "common.h"
#include "lib.h"

#define CAP	V4L2_BUF_TYPE_VIDEO_CAPTURE
#define NBUF	4

static uint64_t ts_us(const struct v4l2_buffer *b)
{
	return b->timestamp.tv_sec * 1000000ull + b->timestamp.tv_usec;
}

static void test_held_buffers(const char *path)
{
	const unsigned int hold = 10;	/* frame intervals, at 30 fps */
	struct v4l2_buffer b[NBUF], next = { 0 };
	int64_t drops0 = -1, drops1 = -1;
	int fd = vp_open(path, O_RDWR | O_NONBLOCK);
	struct vt_stream s;
	int i, r = 0;
	uint32_t gap = 0, last = 0;

	if (!vt_ok(fd >= 0, "open the device", "%s", strerror(-fd))) {
		vt_not_run(4, "held buffers", "no device");
		return;
	}
	vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL);
	vp_set_fps(fd, 30, NULL, NULL);
	r = vt_stream_start(&s, fd, NBUF, NBUF);
	if (!vt_ok(!r && s.n == NBUF, "REQBUFS 4, QBUF all, STREAMON",
		   "%s: %s, %u buffers", s.step ? s.step : "-",
		   vt_errname(-r), s.n)) {
		vt_stream_stop(&s);
		close(fd);
		vt_not_run(3, "held buffers", "no stream");
		return;
	}
	/* every buffer comes back and is held */
	for (i = 0; i < NBUF && !r; i++)
		r = vt_dqbuf(fd, &b[i], 5000 * vt_scale());
	/* QBUF writes the buffer back, sequence 0 */
	last = r ? 0 : b[NBUF - 1].sequence;
	vp_ctrl_get64(fd, VIVPOLL_CID_DROPS, &drops0);
	vp_sleep_ms(hold * 1000 / 30);
	for (i = 0; i < NBUF && !r; i++)
		r = ioctl(fd, VIDIOC_QBUF, &b[i]) ? -errno : 0;
	if (!r)
		r = vt_dqbuf(fd, &next, 5000 * vt_scale());
	vp_ctrl_get64(fd, VIVPOLL_CID_DROPS, &drops1);
	vt_stream_stop(&s);
	close(fd);
	if (!vt_ok(!r, "hold all buffers, queue them again, dequeue one",
		   "%s", vt_errname(-r))) {
		vt_not_run(2, "held buffers", "no frame");
		return;
	}
	gap = next.sequence - last - 1;
	vt_diag("held %u intervals: sequence %u -> %u, drops %" PRId64
		" -> %" PRId64, hold, last, next.sequence,
		drops0, drops1);
	vt_ok(gap >= hold - 2 && gap <= hold + 4 * vt_scale(),
	      "the sequence jumps by about the intervals held",
	      "jumped by %u for %u intervals", gap, hold);
	vt_ok(drops0 >= 0 && drops1 - drops0 == (int64_t)gap,
	      "the drop counter grows by the sequence gap",
	      "drops +%" PRId64 ", gap %u", drops1 - drops0, gap);
}

static void test_first_frame(const char *path)
{
	const unsigned int fps = 30, tries = 5;
	const uint64_t interval_us = 1000000 / fps;
	unsigned int i, early = 0, ready = 0, not_eof = 0;
	uint64_t t0_us, lead_us, worst = UINT64_MAX;
	struct v4l2_buffer b;
	struct vt_stream s;
	char c;
	int fd, r = 0;

	for (i = 0; i < tries && !r; i++) {
		fd = vp_open(path, O_RDWR | O_NONBLOCK);
		if (fd < 0) {
			r = fd;
			break;
		}
		vp_set_format(fd, 320, 240, V4L2_PIX_FMT_YUYV, NULL, NULL);
		vp_set_fps(fd, fps, NULL, NULL);
		r = vt_stream_start(&s, fd, NBUF, NBUF);
		t0_us = s.t_streamon_ns / 1000;
		if (!r) {
			if (!vt_dqbuf(fd, &b, -1))
				ready++;
			r = vt_dqbuf(fd, &b, 5000 * vt_scale());
		}
		if (!r) {
			lead_us = ts_us(&b) > t0_us ? ts_us(&b) - t0_us : 0;
			if (lead_us < worst)
				worst = lead_us;
			/* a tenth of an interval for the clocks' rounding */
			if (lead_us + interval_us / 10 < interval_us)
				early++;
			if ((b.flags & V4L2_BUF_FLAG_TSTAMP_SRC_MASK) !=
			    V4L2_BUF_FLAG_TSTAMP_SRC_EOF)
				not_eof++;
		}
		vt_stream_stop(&s);
		close(fd);
	}
	if (!vt_ok(!r, "stream 320x240 at 30 fps from STREAMON", "%s",
		   vt_errname(-r))) {
		vt_not_run(5, "the first frame", "no stream");
		return;
	}
	vt_ok(!ready, "a non-blocking DQBUF right after STREAMON finds no frame",
	      "a frame was ready at once in %u of %u starts", ready, tries);
	vt_ok(!early, "the first frame's timestamp is one interval after "
	      "STREAMON", "%u of %u starts earlier, the earliest %" PRIu64
	      " us after it (interval %" PRIu64 " us)", early, tries, worst,
	      interval_us);
	vt_ok(!not_eof, "the buffers' timestamp source is end of frame (EOF)",
	      "%u of %u first frames flagged otherwise", not_eof, tries);

	/* read(): its first call starts the engine; nothing can be ready */
	fd = vp_open(path, O_RDWR | O_NONBLOCK);
	if (!vt_ok(fd >= 0, "open the device", "%s", strerror(-fd))) {
		vt_not_run(1, "read()", "no device");
		return;
	}
	r = read(fd, &c, 1) < 0 ? -errno : 0;
	close(fd);
	vt_ok(r == -EAGAIN, "a non-blocking read() that starts streaming "
	      "returns EAGAIN", "%s", r ? vt_errname(-r) : "it read a byte");
}

static void test_late_engine(const char *path)
{
	const unsigned int fps = 60;
	int64_t f0 = -1, d0 = -1, f1 = -1, d1 = -1;
	struct v4l2_querymenu m;
	struct v4l2_buffer b = { 0 }, first = { 0 };
	int fd = vp_open(path, O_RDWR | O_NONBLOCK);
	uint64_t t0, t1, worst = 0, expect_slots;
	unsigned int got = 0, bad = 0, last = 0;
	struct vt_stream s;
	int r = 0, noise = -1;
	char why[160] = "";

	if (!vt_ok(fd >= 0, "open the device", "%s", strerror(-fd))) {
		vt_not_run(3, "the late engine", "no device");
		return;
	}
	if (vp_set_format(fd, 1920, 1080, V4L2_PIX_FMT_XBGR32, NULL, NULL) ||
	    vp_set_fps(fd, fps, NULL, NULL)) {
		vt_ok(false, "1920x1080 XBGR32 at 60 fps", NULL);
		vt_not_run(2, "the late engine", "no format");
		close(fd);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.id = V4L2_CID_TEST_PATTERN;
	for (m.index = 0; m.index < 64; m.index++)
		if (!ioctl(fd, VIDIOC_QUERYMENU, &m) && !strcmp((char *)m.name, "Noise"))
			noise = (int)m.index;
	if (noise < 0 || vp_ctrl_set(fd, V4L2_CID_TEST_PATTERN, noise)) {
		vt_ok(false, "the Noise test pattern", NULL);
		vt_not_run(2, "the late engine", "no Noise pattern");
		close(fd);
		return;
	}
	vp_ctrl_get64(fd, VIVPOLL_CID_FRAMES, &f0);
	vp_ctrl_get64(fd, VIVPOLL_CID_DROPS, &d0);
	r = vt_stream_start(&s, fd, NBUF, NBUF);
	t0 = s.t_streamon_ns;
	if (r) {
		vt_ok(false, "stream 1920x1080", "%s: %s", s.step,
		      vt_errname(-r));
		vt_not_run(2, "the late engine", "no stream");
		vt_stream_stop(&s);
		close(fd);
		return;
	}
	while (vp_now_ns() - t0 < 2000000000ull && !r) {
		int64_t want, diff;

		r = vt_dqbuf(fd, &b, 5000 * vt_scale());
		if (r)
			break;
		if (!got++)
			first = b;
		/* integer microseconds of a slot n: n * 1e6 / fps */
		want = (int64_t)(b.sequence - first.sequence) * 1000000 / fps;
		diff = (int64_t)(ts_us(&b) - ts_us(&first)) - want;
		if (diff < 0)
			diff = -diff;
		if (diff > 2 && !bad++)
			snprintf(why, sizeof(why), "sequence %u: timestamp %+"
				 PRId64 " us from %u x interval", b.sequence,
				 (int64_t)(ts_us(&b) - ts_us(&first)) - want,
				 b.sequence - first.sequence);
		if ((uint64_t)diff > worst)
			worst = diff;
		last = b.sequence;
		r = ioctl(fd, VIDIOC_QBUF, &b) ? -errno : 0;
	}
	t1 = vp_now_ns();
	vt_stream_stop(&s);
	vp_ctrl_get64(fd, VIVPOLL_CID_FRAMES, &f1);
	vp_ctrl_get64(fd, VIVPOLL_CID_DROPS, &d1);
	vp_ctrl_set(fd, V4L2_CID_TEST_PATTERN, 0);
	vp_set_format(fd, 640, 480, V4L2_PIX_FMT_YUYV, NULL, NULL);
	vp_set_fps(fd, 30, NULL, NULL);
	close(fd);

	vt_diag("1920x1080 noise at %u fps: %u frames dequeued in %.2f s, "
		"last sequence %u; driver frames +%" PRId64 ", drops +%" PRId64,
		fps, got, (t1 - t0) / 1e9, last, f1 - f0,
		d1 - d0);
	vt_ok(!r && got >= 2, "stream 1920x1080 noise for 2 s", "%s after %u",
	      vt_errname(-r), got);
	vt_ok(!bad, "timestamp = first + (sequence difference) x interval",
	      "%u of %u frames off, worst %" PRIu64 " us; %s", bad, got,
	      worst, why);
	/* slots since STREAMON: one per interval, the one in progress too */
	expect_slots = (t1 - t0) * fps / 1000000000ull;
	/* the slots of the frame in progress at STREAMOFF are not counted */
	vt_ok(f1 - f0 + d1 - d0 + fps / 2 >= (int64_t)expect_slots &&
	      f1 - f0 + d1 - d0 <= (int64_t)expect_slots + 2,
	      "frames + drops follow the wall clock (a late engine drops)",
	      "%" PRId64 " frames + %" PRId64 " drops in %.2f s, %" PRIu64
	      " slots due", f1 - f0, d1 - d0, (t1 - t0) / 1e9, expect_slots);
}

int main(void)
{
	struct vt_dev devs[VT_MAX_DEVS];
	int n;

	vt_begin("42-sequence: sequence numbers, timestamps and drops");
	vt_plan(1 + 5 + 6 + 4 + 1);
	n = vt_devices(devs, VT_MAX_DEVS);
	if (!vt_ok(n > 0, "a vivpoll device exists", "none found"))
		return vt_end();
	vt_klog_mark("42-sequence");
	test_held_buffers(devs[0].path);
	test_first_frame(devs[0].path);
	test_late_engine(devs[0].path);
	vt_klog_check();
	return vt_end();
}
