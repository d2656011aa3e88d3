// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure helpers of the vivpoll driver
 *
 * Format arithmetic, buffer counts and sizes, frame timing and the clock
 * text drawn into the frames, free of device state: vivpoll_kunit.ko tests
 * them through the exports below, which exist only with KUnit.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <media/v4l2-common.h>

#include "vivpoll-logic.h"

/* The first entry is the default format */
const struct vivpoll_fmt vivpoll_formats[VIVPOLL_NUM_FORMATS] = {
	{ .fourcc = V4L2_PIX_FMT_YUYV,   .bpp = 16, .is_yuv = true },
	{ .fourcc = V4L2_PIX_FMT_UYVY,   .bpp = 16, .is_yuv = true },
	{ .fourcc = V4L2_PIX_FMT_RGB24,  .bpp = 24 },
	{ .fourcc = V4L2_PIX_FMT_BGR24,  .bpp = 24 },
	{ .fourcc = V4L2_PIX_FMT_XBGR32, .bpp = 32 },
	{ .fourcc = V4L2_PIX_FMT_RGB565, .bpp = 16 },
	{ .fourcc = V4L2_PIX_FMT_GREY,   .bpp = 8,  .is_yuv = true },
};
EXPORT_SYMBOL_IF_KUNIT(vivpoll_formats);

/* Discrete frame sizes, in increasing order */
const struct v4l2_frmsize_discrete vivpoll_sizes[VIVPOLL_NUM_SIZES] = {
	{  320,  240 },
	{  640,  480 },
	{ 1280,  720 },
	{ 1920, 1080 },
};
EXPORT_SYMBOL_IF_KUNIT(vivpoll_sizes);

/* Discrete frame intervals, fastest first; 1/30 s is the default */
const struct v4l2_fract vivpoll_intervals[VIVPOLL_NUM_INTERVALS] = {
	{ 1, 60 },
	{ 1, 50 },
	{ 1, 30 },
	{ 1, 25 },
	{ 1, 15 },
	{ 1, 10 },
	{ 1, 5 },
};
EXPORT_SYMBOL_IF_KUNIT(vivpoll_intervals);

const struct vivpoll_fmt *vivpoll_find_format(u32 fourcc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vivpoll_formats); i++)
		if (vivpoll_formats[i].fourcc == fourcc)
			return &vivpoll_formats[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_find_format);

u32 vivpoll_bytesperline(const struct vivpoll_fmt *fmt, u32 width)
{
	return width * fmt->bpp / 8;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_bytesperline);

u32 vivpoll_sizeimage(const struct vivpoll_fmt *fmt, u32 width, u32 height)
{
	return vivpoll_bytesperline(fmt, width) * height;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_sizeimage);

/*
 * Return the supported frame size closest to @width x @height. The values
 * are clamped first: v4l2_find_nearest_size() computes differences in int.
 */
const struct v4l2_frmsize_discrete *vivpoll_nearest_size(u32 width,
							 u32 height)
{
	const struct v4l2_frmsize_discrete *min = &vivpoll_sizes[0];
	const struct v4l2_frmsize_discrete *max =
		&vivpoll_sizes[ARRAY_SIZE(vivpoll_sizes) - 1];

	width = clamp(width, min->width, max->width);
	height = clamp(height, min->height, max->height);
	return v4l2_find_nearest_size(vivpoll_sizes, ARRAY_SIZE(vivpoll_sizes),
				      width, height, width, height);
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_nearest_size);

static u64 vivpoll_fract_ns(const struct v4l2_fract *f)
{
	return div_u64((u64)f->numerator * NSEC_PER_SEC, f->denominator);
}

/*
 * Return the index of the supported frame interval closest to @tpf. An
 * invalid interval (zero numerator or denominator) selects the default.
 */
unsigned int vivpoll_nearest_interval(const struct v4l2_fract *tpf)
{
	unsigned int best = VIVPOLL_DEF_INTERVAL;
	u64 best_diff = U64_MAX;
	unsigned int i;
	u64 want;

	if (!tpf->numerator || !tpf->denominator)
		return VIVPOLL_DEF_INTERVAL;

	want = vivpoll_fract_ns(tpf);
	for (i = 0; i < ARRAY_SIZE(vivpoll_intervals); i++) {
		u64 ns = vivpoll_fract_ns(&vivpoll_intervals[i]);
		u64 diff = ns > want ? ns - want : want - ns;

		if (diff < best_diff) {
			best_diff = diff;
			best = i;
		}
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_nearest_interval);

/*
 * How many buffers queue_setup allocates when @requested are asked for. vb2
 * frees every buffer before VIDIOC_REQBUFS calls queue_setup, so none exist
 * then: VIDIOC_REQBUFS is raised to VIVPOLL_MIN_BUFFERS (the read()
 * emulator, @fileio, to VIVPOLL_READ_BUFFERS), VIDIOC_CREATE_BUFS
 * (@create_bufs) gets what it asked.
 */
unsigned int vivpoll_buffers_to_allocate(unsigned int requested,
					 bool create_bufs, bool fileio)
{
	if (create_bufs)
		return requested;
	return max(requested, fileio ? VIVPOLL_READ_BUFFERS :
				       VIVPOLL_MIN_BUFFERS);
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_buffers_to_allocate);

/* May VIDIOC_CREATE_BUFS allocate buffers of @size for frames of @sizeimage? */
bool vivpoll_plane_size_ok(unsigned int size, unsigned int sizeimage)
{
	return size >= sizeimage && size <= VIVPOLL_MAX_PLANE_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_plane_size_ok);

/* Time of frame slot @slot relative to the start of the stream */
u64 vivpoll_frame_due_ns(u64 slot, const struct v4l2_fract *tpf)
{
	return div_u64(slot * tpf->numerator * NSEC_PER_SEC, tpf->denominator);
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_frame_due_ns);

/* The frame slot in progress @elapsed_ns after the start of the stream */
u64 vivpoll_slot_at(u64 elapsed_ns, const struct v4l2_fract *tpf)
{
	u64 slot = div64_u64(elapsed_ns * tpf->denominator,
			     (u64)tpf->numerator * NSEC_PER_SEC);

	/* the division rounds down, vivpoll_frame_due_ns() too */
	while (vivpoll_frame_due_ns(slot + 1, tpf) <= elapsed_ns)
		slot++;
	return slot;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_slot_at);

/*
 * The engine is about to produce frame slot @slot, @elapsed_ns after the
 * start of the stream. A few slots late (the thread was held up), it
 * produces them one after the other, each with its own sequence number
 * and timestamp, as a capture FIFO would deliver them. More than
 * VIVPOLL_MAX_LATE_SLOTS late, the slots up to the one in progress were
 * missed: each is a drop, its number skipped in @sequence. Return the slot
 * to produce.
 */
u64 vivpoll_catch_up(u32 *sequence, u64 slot, u64 elapsed_ns,
		     const struct v4l2_fract *tpf)
{
	u64 now = vivpoll_slot_at(elapsed_ns, tpf);

	if (now <= slot + VIVPOLL_MAX_LATE_SLOTS)
		return slot;
	*sequence += now - slot;
	return now;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_catch_up);

/*
 * The first text line of a frame: the time of the frame since the stream
 * started (its timestamp minus the start) and its sequence number.
 */
void vivpoll_clock_text(char *buf, size_t len, u64 since_start_ns,
			u32 sequence)
{
	u64 ms = div_u64(since_start_ns, NSEC_PER_MSEC);
	u32 msec, secs;
	u64 hours;

	hours = div_u64_rem(ms, 3600000, &msec);
	secs = msec / 1000;
	snprintf(buf, len, " %02llu:%02u:%02u.%03u frame %u", hours % 100,
		 secs / 60, secs % 60, msec % 1000, sequence);
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_clock_text);
