/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Core structures of the vivpoll capture driver
 */

#ifndef _VIVPOLL_CORE_H_
#define _VIVPOLL_CORE_H_

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <media/tpg/v4l2-tpg.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-dev.h>
#include <media/v4l2-device.h>
#include <media/videobuf2-v4l2.h>

#include "vivpoll-logic.h"
#include "vivpoll-cids.h"

#define VIVPOLL_NAME		"vivpoll"
#define VIVPOLL_MAX_DEVS	8
#define VIVPOLL_NUM_INPUTS	2
#define VIVPOLL_MAX_WIDTH	1920

/* Text lines drawn over every frame, 16 pixels apart */
#define VIVPOLL_TEXT_LINES	4
#define VIVPOLL_TEXT_LEN	VIVPOLL_CLOCK_TEXT_LEN

/**
 * struct vivpoll_buffer - a capture buffer
 * @vb: the vb2 buffer, must be first
 * @list: entry in &vivpoll_dev.buf_list while owned by the driver
 * @queued_ns: CLOCK_MONOTONIC time it was queued to the engine
 */
struct vivpoll_buffer {
	struct vb2_v4l2_buffer vb;
	struct list_head list;
	u64 queued_ns;
};

/**
 * struct vivpoll_run - one run of the frame engine, owned by its thread
 * @stream_start_ns: CLOCK_MONOTONIC time the run's first slot began (zero of
 *	the drawn clock)
 * @start_ns: CLOCK_MONOTONIC time at which slot 0 began
 * @tpf: frame interval of the slots counted from @start_ns
 * @slot: frame slot in progress, counted from @start_ns
 * @sequence: sequence number of the next frame slot
 * @pattern: the test pattern, rendered when it changes, copied into buffers
 * @pattern_gen: the &vivpoll_dev.pattern_gen @pattern was rendered for
 * @shown: the text lines drawn on @pattern since it was rendered
 *
 * Initialised before the thread is created, read back after kthread_stop().
 */
struct vivpoll_run {
	u64 stream_start_ns;
	u64 start_ns;
	struct v4l2_fract tpf;
	u64 slot;
	u32 sequence;
	u8 *pattern;
	u64 pattern_gen;
	char shown[VIVPOLL_TEXT_LINES][VIVPOLL_TEXT_LEN];
};

/**
 * struct vivpoll_dev - one vivpoll capture device
 * @v4l2_dev: the v4l2 device; its refcount keeps this structure alive
 * @vdev: the video device node
 * @queue: the vb2 capture queue
 * @ctrl_handler: the control handler
 * @inst: instance number, the id of the platform device
 * @mutex: serialises the ioctls, the file operations and the vb2 queue
 * @gen_lock: protects the fields below that the engine reads
 * @tpg: the test pattern generator
 * @pix: current format
 * @timeperframe: current frame interval
 * @input: current input
 * @cam2_signal: input 1, Camera 2, has a signal
 * @pattern_gen: generation of the test pattern settings, never 0: bumped
 *	by vivpoll_pattern_changed() whenever the pattern would look different
 * @lock: protects @buf_list
 * @buf_list: buffers queued to the engine and not yet filled
 * @ctrl_running: the Engine Running control
 * @ctrl_starts: the Engine Starts control
 * @ctrl_frames: the Frames Produced control
 * @ctrl_drops: the Frames Dropped control
 * @engine: the frame engine thread, NULL when stopped
 * @run: state of the current or last run of @engine
 */
struct vivpoll_dev {
	struct v4l2_device v4l2_dev;
	struct video_device vdev;
	struct vb2_queue queue;
	struct v4l2_ctrl_handler ctrl_handler;
	unsigned int inst;

	/* serialises the ioctls, the file operations and the vb2 queue */
	struct mutex mutex;

	/* protects the state read by the engine, taken after @mutex */
	struct mutex gen_lock;
	struct tpg_data tpg;
	struct v4l2_pix_format pix;
	struct v4l2_fract timeperframe;
	unsigned int input;
	bool cam2_signal;
	u64 pattern_gen;

	/* protects buf_list */
	spinlock_t lock;
	struct list_head buf_list;

	struct v4l2_ctrl *ctrl_running;
	struct v4l2_ctrl *ctrl_starts;
	struct v4l2_ctrl *ctrl_frames;
	struct v4l2_ctrl *ctrl_drops;

	struct task_struct *engine;
	struct vivpoll_run run;
};

static inline struct vivpoll_buffer *
to_vivpoll_buffer(struct vb2_v4l2_buffer *vbuf)
{
	return container_of(vbuf, struct vivpoll_buffer, vb);
}

/* The test pattern settings changed; called with gen_lock held */
static inline void vivpoll_pattern_changed(struct vivpoll_dev *dev)
{
	lockdep_assert_held(&dev->gen_lock);
	dev->pattern_gen++;
}

#endif
