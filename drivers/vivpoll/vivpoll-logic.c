// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure helpers of the vivpoll driver
 *
 * Format arithmetic, frame timing arithmetic and the rule that decides
 * whether a poll() can start the capture engine. None of this touches
 * device state; vivpoll_kunit.ko tests it through the exports below,
 * which exist only in kernels with KUnit.
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

bool vivpoll_size_is_valid(u32 width, u32 height)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vivpoll_sizes); i++)
		if (vivpoll_sizes[i].width == width &&
		    vivpoll_sizes[i].height == height)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_size_is_valid);

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
 * vb2_core_poll() starts the read() emulator, and with it streaming, when
 * the caller asks for POLLIN or POLLRDNORM on a capture queue that has no
 * buffers yet. A NULL poll table reads as "all events requested", which is
 * how a select() waiting only for exceptions (POLLPRI) used to start the
 * engine before poll_requested_events() existed.
 */
bool vivpoll_poll_may_start_engine(__poll_t req_events, bool queue_busy)
{
	return (req_events & (EPOLLIN | EPOLLRDNORM)) && !queue_busy;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_poll_may_start_engine);

/*
 * Account one frame slot and return its sequence number. The sequence
 * number advances for dropped slots too, so that drops show up as gaps.
 */
u32 vivpoll_count_slot(struct vivpoll_counts *counts, bool filled)
{
	if (filled)
		counts->frames++;
	else
		counts->drops++;
	return counts->sequence++;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_count_slot);

/* Time of frame slot @slot relative to the start of the stream */
u64 vivpoll_frame_due_ns(u64 slot, const struct v4l2_fract *tpf)
{
	return div_u64(slot * tpf->numerator * NSEC_PER_SEC, tpf->denominator);
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_frame_due_ns);

/*
 * The engine is about to produce frame slot @slot, @elapsed_ns after the
 * start of its time base. Being a little late is normal, and the engine
 * then produces the slots it is late for one after the other, with their
 * own timestamps, keeping the frame rate. But if it is more than
 * VIVPOLL_MAX_LATE_SLOTS frame intervals late, the engine itself was held
 * up (an overloaded or emulated CPU): producing all missed slots in a burst
 * would only run out of buffers and turn the engine's own delay into
 * drops. Return by how much to move the time base so that @slot is due now
 * in that case, and zero otherwise.
 */
u64 vivpoll_time_base_shift_ns(u64 slot, u64 elapsed_ns,
			       const struct v4l2_fract *tpf)
{
	u64 limit = vivpoll_frame_due_ns(slot + VIVPOLL_MAX_LATE_SLOTS, tpf);

	if (elapsed_ns <= limit)
		return 0;
	return elapsed_ns - vivpoll_frame_due_ns(slot, tpf);
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_time_base_shift_ns);

/*
 * A text line of a frame holds @old and must show @new. The characters of
 * the font are cells of a fixed width, each drawn with its background, so
 * drawing a part of @new only changes the cells of that part. Return false
 * if @new is shorter than @old: cells of @old would be left over, and the
 * line must be drawn on a clean picture. Otherwise return true and set
 * *@first and *@len to the part of @new to draw: the span from the first to
 * the last cell that differs (*@len is 0 if the line is unchanged).
 */
bool vivpoll_text_span(const char *old, const char *new,
		       unsigned int *first, unsigned int *len)
{
	size_t old_len = strlen(old);
	size_t new_len = strlen(new);
	size_t a = 0, b = new_len;

	if (new_len < old_len)
		return false;
	while (a < old_len && old[a] == new[a])
		a++;
	if (new_len == old_len)
		while (b > a && old[b - 1] == new[b - 1])
			b--;
	*first = a;
	*len = b - a;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(vivpoll_text_span);
