/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure helpers of the vivpoll driver
 *
 * Everything declared here is free of device state and locking; the KUnit
 * suite in vivpoll_kunit.ko calls it through EXPORT_SYMBOL_IF_KUNIT().
 */

#ifndef _VIVPOLL_LOGIC_H_
#define _VIVPOLL_LOGIC_H_

#include <linux/poll.h>
#include <linux/types.h>
#include <linux/videodev2.h>

/*
 * Minimum number of buffers allocated by queue_setup: generous, so that an
 * application that is descheduled for a few frames (easily seen on a busy
 * emulated CPU) does not make the engine drop frames.
 */
#define VIVPOLL_MIN_BUFFERS		8

/*
 * The engine produces frame slots it is late for one after the other, but
 * it catches up on at most this many: if it fell further behind, it moves
 * its time base instead (see vivpoll_time_base_shift_ns()).
 */
#define VIVPOLL_MAX_LATE_SLOTS		4

/**
 * struct vivpoll_fmt - a supported packed pixel format
 * @fourcc: the V4L2 pixel format
 * @bpp: bits per pixel
 * @is_yuv: true for Y'CbCr (and luma only) formats, false for RGB
 */
struct vivpoll_fmt {
	u32 fourcc;
	u8 bpp;
	bool is_yuv;
};

/**
 * struct vivpoll_counts - frame slot accounting of one run of the engine
 * @sequence: sequence number of the next frame slot
 * @frames: slots that filled a buffer
 * @drops: slots that found no queued buffer
 */
struct vivpoll_counts {
	u32 sequence;
	u64 frames;
	u64 drops;
};

#define VIVPOLL_NUM_FORMATS		7
#define VIVPOLL_NUM_SIZES		4
#define VIVPOLL_NUM_INTERVALS		7
#define VIVPOLL_DEF_INTERVAL		2

extern const struct vivpoll_fmt vivpoll_formats[VIVPOLL_NUM_FORMATS];
extern const struct v4l2_frmsize_discrete vivpoll_sizes[VIVPOLL_NUM_SIZES];
extern const struct v4l2_fract vivpoll_intervals[VIVPOLL_NUM_INTERVALS];

const struct vivpoll_fmt *vivpoll_find_format(u32 fourcc);
u32 vivpoll_bytesperline(const struct vivpoll_fmt *fmt, u32 width);
u32 vivpoll_sizeimage(const struct vivpoll_fmt *fmt, u32 width, u32 height);
const struct v4l2_frmsize_discrete *vivpoll_nearest_size(u32 width,
							 u32 height);
bool vivpoll_size_is_valid(u32 width, u32 height);
unsigned int vivpoll_nearest_interval(const struct v4l2_fract *tpf);

bool vivpoll_poll_may_start_engine(__poll_t req_events, bool queue_busy);

u32 vivpoll_count_slot(struct vivpoll_counts *counts, bool filled);
u64 vivpoll_frame_due_ns(u64 slot, const struct v4l2_fract *tpf);
u64 vivpoll_time_base_shift_ns(u64 slot, u64 elapsed_ns,
			       const struct v4l2_fract *tpf);

bool vivpoll_text_span(const char *old, const char *new,
		       unsigned int *first, unsigned int *len);

#endif
