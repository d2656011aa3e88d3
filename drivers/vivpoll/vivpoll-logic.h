/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure helpers of the vivpoll driver
 *
 * Everything declared here is free of device state and locking; the KUnit
 * suite in vivpoll_kunit.ko calls it through EXPORT_SYMBOL_IF_KUNIT().
 */

#ifndef _VIVPOLL_LOGIC_H_
#define _VIVPOLL_LOGIC_H_

#include <linux/types.h>
#include <linux/videodev2.h>

/*
 * Buffers a stream needs, as vivid: one the engine fills while the
 * application holds the other. VIDIOC_REQBUFS is raised to this (GStreamer
 * 1.22's v4l2src asks for exactly 2), VIDIOC_CREATE_BUFS never; the read()
 * emulator, which asks for one and lets the driver decide, gets
 * VIVPOLL_READ_BUFFERS.
 */
#define VIVPOLL_MIN_BUFFERS		2
#define VIVPOLL_READ_BUFFERS		4

/* Late frame slots the engine still produces (see vivpoll_catch_up()) */
#define VIVPOLL_MAX_LATE_SLOTS		4

/* Largest frame: 1920x1080 at 32 bits per pixel */
#define VIVPOLL_MAX_SIZEIMAGE		(1920 * 1080 * 4)
/* Largest buffer VIDIOC_CREATE_BUFS may ask for */
#define VIVPOLL_MAX_PLANE_SIZE		(2 * VIVPOLL_MAX_SIZEIMAGE)

/* Clock and frame counter drawn in the first text line of a frame */
#define VIVPOLL_CLOCK_TEXT_LEN		48

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
unsigned int vivpoll_nearest_interval(const struct v4l2_fract *tpf);

unsigned int vivpoll_buffers_to_allocate(unsigned int requested,
					 bool create_bufs, bool fileio);
bool vivpoll_plane_size_ok(unsigned int size, unsigned int sizeimage);

u64 vivpoll_frame_due_ns(u64 slot, const struct v4l2_fract *tpf);
u64 vivpoll_slot_at(u64 elapsed_ns, const struct v4l2_fract *tpf);
u64 vivpoll_catch_up(u32 *sequence, u64 slot, u64 elapsed_ns,
		     const struct v4l2_fract *tpf);
void vivpoll_clock_text(char *buf, size_t len, u64 since_start_ns,
			u32 sequence);

#endif
