// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated capture DMA engine
 *
 * A kthread, not an hrtimer: filling a frame takes milliseconds, too long
 * for hard-irq context. It sleeps until an absolute CLOCK_MONOTONIC
 * deadline, and kthread_stop() gives stop_streaming a synchronous stop.
 *
 * The engine models a sensor. Frame slot n of a run begins at
 * start + n * timeperframe, when streaming starts for slot 0, and ends one
 * interval later; its sequence number is n. When a slot begins, the
 * reception of its frame begins: the engine queues V4L2_EVENT_FRAME_SYNC
 * with the slot's sequence number. When it ends, the oldest buffer that
 * was queued by then is filled and handed back, timestamped with the end
 * of the slot (V4L2_BUF_FLAG_TSTAMP_SRC_EOF), so no buffer is timestamped
 * before it was queued; if none was, the slot is a drop. As with a capture
 * engine that writes a frame out of its FIFO when it ends (and vivid), a
 * client has a whole interval more than if the buffer were needed when the
 * frame begins: under an emulated CPU, that decides whether it keeps up.
 * A thread a few slots late produces them one after the other; further
 * behind, the slots it missed are dropped (see vivpoll_catch_up()). The
 * time base never moves: each drop skips a sequence number.
 *
 * The test pattern only changes with the format and the controls: it is
 * rendered into a buffer of the engine when it changed (in every frame
 * where it is noise), the text lines are drawn on it where they changed,
 * and it is copied into each capture buffer. Without that buffer streaming
 * does not start (-ENOMEM).
 */

#include <linux/freezer.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <media/v4l2-event.h>

#include "vivpoll-core.h"
#include "vivpoll-ctrls.h"
#include "vivpoll-engine.h"
#include "vivpoll_trace.h"

/*
 * Take the oldest buffer queued to the driver, if it was queued by
 * @queued_by_ns (CLOCK_MONOTONIC)
 */
static struct vivpoll_buffer *
vivpoll_engine_take_buffer(struct vivpoll_dev *dev, u64 queued_by_ns)
{
	struct vivpoll_buffer *buf;

	spin_lock(&dev->lock);
	buf = list_first_entry_or_null(&dev->buf_list, struct vivpoll_buffer,
				       list);
	if (buf && buf->queued_ns <= queued_by_ns)
		list_del(&buf->list);
	else
		buf = NULL;
	spin_unlock(&dev->lock);
	return buf;
}

/*
 * Sleep until @until_ns (CLOCK_MONOTONIC). The sleep is freezable: the
 * freezer freezes the thread where it sleeps. The state is set before
 * kthread_should_stop() is read, so the wake-up of kthread_stop() is never
 * lost. Return true if the thread is asked to stop.
 */
static bool vivpoll_engine_wait(u64 until_ns)
{
	ktime_t expires = ns_to_ktime(until_ns);
	bool stop;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE | TASK_FREEZABLE);
		stop = kthread_should_stop();
		if (stop || ktime_get_ns() >= until_ns)
			break;
		schedule_hrtimeout_range(&expires, 0, HRTIMER_MODE_ABS);
	}
	__set_current_state(TASK_RUNNING);
	return stop;
}

/* Format the text lines of a frame; called with gen_lock held */
static void vivpoll_engine_text(struct vivpoll_dev *dev, bool no_signal,
				const struct vivpoll_buffer *buf,
				char text[VIVPOLL_TEXT_LINES][VIVPOLL_TEXT_LEN])
{
	u64 ts = buf->vb.vb2_buf.timestamp;
	u32 rem_ns;
	u64 secs;

	vivpoll_clock_text(text[0], VIVPOLL_TEXT_LEN,
			   ts - dev->run.stream_start_ns, buf->vb.sequence);
	secs = div_u64_rem(ts, NSEC_PER_SEC, &rem_ns);
	snprintf(text[1], VIVPOLL_TEXT_LEN, " ts %llu.%06u", secs,
		 rem_ns / (u32)NSEC_PER_USEC);
	snprintf(text[2], VIVPOLL_TEXT_LEN, " %s %s", dev->v4l2_dev.name,
		 dev->input == VIVPOLL_INPUT_CAM2 ? "Camera 2" : "Camera");
	if (no_signal)
		strscpy(text[3], " NO SIGNAL", VIVPOLL_TEXT_LEN);
}

/*
 * Fill @buf, mapped at @vbuf, with the picture and its text. The pattern is
 * rendered again if it changed, is noise or shows a line longer than the
 * new one; the text is drawn on it where it differs from run->shown, each
 * run of changed characters with one tpg_gen_text() (while the pattern
 * stays, a few digits a frame); then the whole is copied.
 *
 * run->pattern is only written by this thread (and allocated, first
 * rendered and freed while it does not run), so the copy from it is made
 * without gen_lock: a control set meanwhile does not wait for it.
 */
static void vivpoll_engine_fill(struct vivpoll_dev *dev,
				struct vivpoll_buffer *buf, u8 *vbuf)
{
	char text[VIVPOLL_TEXT_LINES][VIVPOLL_TEXT_LEN] = {};
	char part[VIVPOLL_TEXT_LEN];
	struct vivpoll_run *run = &dev->run;
	struct tpg_data *tpg = &dev->tpg;
	u8 *basep[TPG_MAX_PLANES][2];
	bool no_signal, noise, shrinks = false;
	unsigned int i, c, end;
	u32 size;

	mutex_lock(&dev->gen_lock);
	no_signal = dev->input == VIVPOLL_INPUT_CAM2 && !dev->cam2_signal;
	noise = no_signal || tpg->pattern == TPG_PAT_NOISE;
	vivpoll_engine_text(dev, no_signal, buf, text);
	for (i = 0; i < VIVPOLL_TEXT_LINES; i++)
		shrinks |= strlen(text[i]) < strlen(run->shown[i]);
	if (noise || shrinks || run->pattern_gen != dev->pattern_gen) {
		tpg_s_quality(tpg, no_signal ? TPG_QUAL_NOISE : TPG_QUAL_COLOR,
			      0);
		tpg_fill_plane_buffer(tpg, 0, 0, run->pattern);
		/* noise differs in every frame: 0 is never a generation */
		run->pattern_gen = noise ? 0 : dev->pattern_gen;
		memset(run->shown, 0, sizeof(run->shown));
	}
	tpg_calc_text_basep(tpg, basep, 0, run->pattern);
	for (i = 0; i < VIVPOLL_TEXT_LINES; i++) {
		for (c = 0; text[i][c]; c = max(end, c + 1)) {
			for (end = c; text[i][end] &&
			     text[i][end] != run->shown[i][end]; end++)
				part[end - c] = text[i][end];
			part[end - c] = '\0';
			if (end > c)
				tpg_gen_text(tpg, basep, 16 + 16 * i,
					     16 + 8 * c, part);
		}
		strscpy(run->shown[i], text[i], VIVPOLL_TEXT_LEN);
	}
	size = dev->pix.sizeimage;
	mutex_unlock(&dev->gen_lock);

	memcpy(vbuf, run->pattern, size);
}

/*
 * Fill @buf, given its sequence number and timestamp, and hand it back: a
 * frame, counted as produced, or a buffer with an error if it has no
 * mapping to fill.
 */
static void vivpoll_engine_deliver(struct vivpoll_dev *dev,
				   struct vivpoll_buffer *buf)
{
	u8 *vbuf = vb2_plane_vaddr(&buf->vb.vb2_buf, 0);

	if (vbuf) {
		vivpoll_engine_fill(dev, buf, vbuf);
		vivpoll_ctrl_add(dev->ctrl_frames, 1);
	}
	vb2_buffer_done(&buf->vb.vb2_buf,
			vbuf ? VB2_BUF_STATE_DONE : VB2_BUF_STATE_ERROR);
}

/* When frame slot @slot of the run begins (CLOCK_MONOTONIC) */
static u64 vivpoll_engine_slot_begin(const struct vivpoll_run *run, u64 slot)
{
	return run->start_ns + vivpoll_frame_due_ns(slot, &run->tpf);
}

/*
 * The frame slot in progress ends: the oldest buffer queued by its end (not
 * one queued while the thread was late) gets the slot's sequence number
 * and end-of-frame timestamp, or the slot is a drop. Return that buffer,
 * for vivpoll_engine_deliver().
 */
static struct vivpoll_buffer *vivpoll_engine_end_slot(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;
	u64 end = vivpoll_engine_slot_begin(run, ++run->slot);
	struct vivpoll_buffer *buf = vivpoll_engine_take_buffer(dev, end);
	u32 sequence = run->sequence++;

	if (!buf) {
		vivpoll_ctrl_add(dev->ctrl_drops, 1);
		dev_dbg(dev->v4l2_dev.dev, "frame %u dropped, no buffer\n",
			sequence);
		return NULL;
	}
	buf->vb.sequence = sequence;
	buf->vb.field = V4L2_FIELD_NONE;
	buf->vb.vb2_buf.timestamp = end;
	return buf;
}

/*
 * Pick up a frame interval changed by VIDIOC_S_PARM while streaming: the
 * next slot stays due when the old interval said, the slots after it are
 * counted with the new interval from there.
 */
static void vivpoll_engine_update_interval(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;
	struct v4l2_fract tpf;

	mutex_lock(&dev->gen_lock);
	tpf = dev->timeperframe;
	mutex_unlock(&dev->gen_lock);

	if (tpf.numerator == run->tpf.numerator &&
	    tpf.denominator == run->tpf.denominator)
		return;
	run->start_ns += vivpoll_frame_due_ns(run->slot, &run->tpf);
	run->slot = 0;
	run->tpf = tpf;
}

/*
 * Before a slot begins: if the thread fell too far behind, the slots that
 * went by were missed, each a drop with its sequence skipped.
 */
static void vivpoll_engine_catch_up(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;
	u64 now = ktime_get_ns(), slot, missed;

	if (now < run->start_ns)	/* woken before slot 0 was due */
		return;
	slot = vivpoll_catch_up(&run->sequence, run->slot, now - run->start_ns,
				&run->tpf);
	missed = slot - run->slot;
	if (!missed)
		return;
	run->slot = slot;
	vivpoll_ctrl_add(dev->ctrl_drops, missed);
	dev_dbg(dev->v4l2_dev.dev, "engine late: %llu frame slots dropped\n",
		missed);
}

static int vivpoll_engine_thread(void *data)
{
	struct vivpoll_dev *dev = data;
	struct vivpoll_run *run = &dev->run;
	struct v4l2_event sync = { .type = V4L2_EVENT_FRAME_SYNC };
	struct vivpoll_buffer *done = NULL;
	u64 end;

	set_freezable();
	for (;;) {
		try_to_freeze();
		/* a frame slot begins: the reception of its frame begins */
		vivpoll_engine_catch_up(dev);
		sync.u.frame_sync.frame_sequence = run->sequence;
		v4l2_event_queue(&dev->vdev, &sync);
		/* then the frame that ended as it began is written out */
		if (done)
			vivpoll_engine_deliver(dev, done);
		/* it ends when the next one begins */
		end = vivpoll_engine_slot_begin(run, run->slot + 1);
		if (vivpoll_engine_wait(end))
			break;
		done = vivpoll_engine_end_slot(dev);
		vivpoll_engine_update_interval(dev);
		cond_resched();
	}
	return 0;
}

/*
 * Start the engine. Only called from the vb2 start_streaming op, with the
 * queue lock held: by VIDIOC_STREAMON, read() or a poll() for POLLIN.
 */
int vivpoll_engine_start(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;
	struct task_struct *thread;

	if (WARN_ON(dev->engine))
		return -EBUSY;

	memset(run, 0, sizeof(*run));
	mutex_lock(&dev->gen_lock);
	run->tpf = dev->timeperframe;
	/* Zeroed: it is copied into buffers userspace sees */
	run->pattern = vzalloc(dev->pix.sizeimage);
	if (!run->pattern) {
		mutex_unlock(&dev->gen_lock);
		return -ENOMEM;
	}
	/* Render it now, before slot 0 is due */
	if (dev->tpg.pattern != TPG_PAT_NOISE) {
		tpg_s_quality(&dev->tpg, TPG_QUAL_COLOR, 0);
		tpg_fill_plane_buffer(&dev->tpg, 0, 0, run->pattern);
		run->pattern_gen = dev->pattern_gen;
	}
	mutex_unlock(&dev->gen_lock);
	/*
	 * Slot 0 begins now and its frame is done one interval later:
	 * nothing is ready the moment streaming starts.
	 */
	run->start_ns = ktime_get_ns();
	run->stream_start_ns = run->start_ns;

	v4l2_ctrl_s_ctrl(dev->ctrl_running, true);

	/* vivpoll-N-cap: within TASK_COMM_LEN for every instance */
	thread = kthread_run(vivpoll_engine_thread, dev, "%s-cap",
			     dev->v4l2_dev.name);
	if (IS_ERR(thread)) {
		v4l2_err(&dev->v4l2_dev, "cannot start the engine thread\n");
		v4l2_ctrl_s_ctrl(dev->ctrl_running, false);
		vfree(run->pattern);
		run->pattern = NULL;
		return PTR_ERR(thread);
	}
	dev->engine = thread;
	/* only engines that run count as started */
	vivpoll_ctrl_add(dev->ctrl_starts, 1);
	trace_vivpoll_engine_start(dev->inst);
	return 0;
}

/* Stop the engine; called from the vb2 stop_streaming op, queue lock held */
void vivpoll_engine_stop(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;

	if (!dev->engine)
		return;

	kthread_stop(dev->engine);
	dev->engine = NULL;
	vfree(run->pattern);
	run->pattern = NULL;

	v4l2_ctrl_s_ctrl(dev->ctrl_running, false);
	trace_vivpoll_engine_stop(dev->inst, run->sequence);
}

/* Hand all buffers still owned by the driver back to vb2; needs dev->mutex */
void vivpoll_engine_return_buffers(struct vivpoll_dev *dev,
				   enum vb2_buffer_state state)
{
	struct vivpoll_buffer *buf, *tmp;

	spin_lock(&dev->lock);
	list_for_each_entry_safe(buf, tmp, &dev->buf_list, list) {
		list_del(&buf->list);
		vb2_buffer_done(&buf->vb.vb2_buf, state);
	}
	spin_unlock(&dev->lock);
}
