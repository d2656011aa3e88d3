// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated capture DMA engine
 *
 * The engine is a kthread, not an hrtimer. Filling a large frame with the
 * test pattern generator takes milliseconds, and many times that on an
 * emulated CPU: far too long for the hard-irq context of an hrtimer
 * callback, which would then need a workqueue hop for every frame. A
 * kthread that sleeps until an absolute CLOCK_MONOTONIC deadline with
 * schedule_hrtimeout_range() gets the same precise wakeups, may sleep on
 * gen_lock while it fills a buffer, and kthread_stop() gives
 * stop_streaming a simple synchronous stop.
 *
 * Frame slot n of a run is due at start + n * timeperframe; the engine
 * never sleeps for a fixed time, so the frame rate does not drift. Every
 * slot queues a V4L2_EVENT_FRAME_SYNC event, then fills the oldest queued
 * buffer or, if no buffer is queued before the next slot is due, counts a
 * drop. The sequence number advances in both cases, so drops show up as
 * sequence gaps. The buffer timestamp is the due time of its slot, the
 * start of the frame.
 *
 * Only the application can cause drops. When the engine thread itself
 * wakes up late, it produces the slots it missed one after the other; if
 * it is more than a few frame intervals late, it moves its start time by
 * that delay instead (see vivpoll_time_base_shift_ns()), rather than
 * producing all missed slots in a burst or counting them as dropped.
 *
 * With the bench-only module parameter unthrottled set when streaming
 * starts, there are no slots: the engine fills a buffer as soon as one is
 * queued, timestamped when it starts on it, and never drops a frame.
 *
 * The test pattern only changes with the format and the controls, so the
 * engine renders it once into a buffer of its own and copies it into each
 * capture buffer, then draws the text lines (time and frame counter,
 * timestamp, device) over the copy. A buffer that no one but the engine
 * can have written since it last filled it (see vivpoll_engine_fill())
 * still holds the pattern: only the characters that changed are redrawn.
 * The engine is only woken up by a queued buffer when it waits for one.
 */

#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <media/v4l2-event.h>

#include "vivpoll-core.h"
#include "vivpoll-engine.h"
#include "vivpoll-trace.h"

/* Take the oldest buffer queued to the driver, if any */
static struct vivpoll_buffer *vivpoll_engine_take_buffer(struct vivpoll_dev *dev)
{
	struct vivpoll_buffer *buf;

	spin_lock(&dev->lock);
	buf = list_first_entry_or_null(&dev->buf_list, struct vivpoll_buffer,
				       list);
	if (buf)
		list_del(&buf->list);
	spin_unlock(&dev->lock);
	return buf;
}

/*
 * Is a buffer queued? If not, tell vivpoll_engine_queue() to wake up the
 * engine for the next one.
 */
static bool vivpoll_engine_have_buffer(struct vivpoll_dev *dev)
{
	bool have;

	spin_lock(&dev->lock);
	have = !list_empty(&dev->buf_list);
	dev->engine_wants_buffer = !have;
	spin_unlock(&dev->lock);
	return have;
}

/*
 * Sleep until @until_ns (CLOCK_MONOTONIC; KTIME_MAX: no time limit) or, if
 * @want_buffer, until a buffer is queued. Return true if the thread is
 * asked to stop.
 */
static bool vivpoll_engine_wait(struct vivpoll_dev *dev, u64 until_ns,
				bool want_buffer)
{
	ktime_t expires = ns_to_ktime(until_ns);
	bool stop = false;
	DEFINE_WAIT(wait);

	for (;;) {
		prepare_to_wait(&dev->engine_wq, &wait, TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			stop = true;
			break;
		}
		if (ktime_get_ns() >= until_ns)
			break;
		if (want_buffer && vivpoll_engine_have_buffer(dev))
			break;
		/* NULL: no timer at all rather than one that never fires */
		schedule_hrtimeout_range(until_ns == KTIME_MAX ? NULL : &expires,
					 0, HRTIMER_MODE_ABS);
	}
	finish_wait(&dev->engine_wq, &wait);
	if (want_buffer) {
		spin_lock(&dev->lock);
		dev->engine_wants_buffer = false;
		spin_unlock(&dev->lock);
	}
	return stop;
}

/*
 * Copy @size bytes of a picture. Whole pages, when both sides are page
 * aligned (vmalloc memory: the pattern and MMAP buffers), are copied with
 * copy_page(), the kernel's page copy: on x86 it moves 8 bytes per step,
 * where memcpy() on a CPU with ERMS moves one (rep movsb, fast in silicon
 * but emulated byte by byte by QEMU's TCG, 10 times slower there).
 * copy_page() is not instrumented by KASAN: with KASAN, memcpy() only.
 */
static void vivpoll_engine_copy(u8 *dst, u8 *src, size_t size)
{
	size_t off = 0;

	if (!IS_ENABLED(CONFIG_KASAN) && PAGE_ALIGNED(dst) &&
	    PAGE_ALIGNED(src))
		for (; off + PAGE_SIZE <= size; off += PAGE_SIZE)
			copy_page(dst + off, src + off);
	memcpy(dst + off, src + off, size - off);
}

/* Format the text lines of a frame; called with gen_lock held */
static void vivpoll_engine_text(struct vivpoll_dev *dev,
				const struct vivpoll_buffer *buf, bool no_signal,
				char text[VIVPOLL_TEXT_LINES][VIVPOLL_TEXT_LEN])
{
	u64 ts = buf->vb.vb2_buf.timestamp;
	u32 ms, rem_ns;
	u64 secs;

	ms = div_u64(ts - dev->run.stream_start_ns, NSEC_PER_MSEC);
	secs = div_u64_rem(ts, NSEC_PER_SEC, &rem_ns);

	snprintf(text[0], VIVPOLL_TEXT_LEN, " %02u:%02u:%02u.%03u frame %u",
		 ms / 3600000 % 100, ms / 60000 % 60, ms / 1000 % 60,
		 ms % 1000, buf->vb.sequence);
	snprintf(text[1], VIVPOLL_TEXT_LEN, " ts %llu.%06u", secs,
		 rem_ns / (u32)NSEC_PER_USEC);
	snprintf(text[2], VIVPOLL_TEXT_LEN, " %s %s", dev->v4l2_dev.name,
		 dev->input == VIVPOLL_INPUT_HDMI ? "HDMI" : "Camera");
	if (no_signal)
		strscpy(text[3], " NO SIGNAL", VIVPOLL_TEXT_LEN);
}

/*
 * Fill @buf, mapped at @vbuf, with the picture and its text. @private: no
 * one but the engine can have written the buffer since it last filled it:
 * MMAP memory of a queue none of whose buffers was mapped writable or
 * exported as a DMABUF (see vivpoll_mmap() and vid_cap_expbuf()). Only
 * then may the engine trust what it recorded in @buf the last time.
 *
 * run->pattern is only written by this thread (and allocated and freed
 * while it does not run), so the copy of a whole frame from it is made
 * without gen_lock: a control set meanwhile does not wait for it.
 */
static void vivpoll_engine_fill(struct vivpoll_dev *dev,
				struct vivpoll_buffer *buf, u8 *vbuf,
				bool private)
{
	char text[VIVPOLL_TEXT_LINES][VIVPOLL_TEXT_LEN] = {};
	unsigned int first[VIVPOLL_TEXT_LINES], len[VIVPOLL_TEXT_LINES];
	struct vivpoll_run *run = &dev->run;
	struct tpg_data *tpg = &dev->tpg;
	u8 *basep[TPG_MAX_PLANES][2];
	char part[VIVPOLL_TEXT_LEN];
	bool no_signal, redraw = true;
	unsigned int i;
	u32 copy = 0;	/* bytes to copy from the cached pattern */

	mutex_lock(&dev->gen_lock);
	no_signal = dev->input == VIVPOLL_INPUT_HDMI && !dev->hdmi_signal;
	vivpoll_engine_text(dev, buf, no_signal, text);

	if (no_signal || tpg->pattern == TPG_PAT_NOISE || !run->pattern) {
		/* Noise differs in every frame: render the whole picture */
		tpg_s_quality(tpg, no_signal ? TPG_QUAL_NOISE : TPG_QUAL_COLOR, 0);
		tpg_fill_plane_buffer(tpg, 0, 0, vbuf);
		buf->pattern_gen = 0;
	} else {
		tpg_s_quality(tpg, TPG_QUAL_COLOR, 0);
		if (run->pattern_gen != dev->pattern_gen) {
			tpg_fill_plane_buffer(tpg, 0, 0, run->pattern);
			run->pattern_gen = dev->pattern_gen;
		}
		/* Does the buffer still hold this pattern and a longer text? */
		if (private && buf->pattern_gen == run->pattern_gen) {
			redraw = false;
			for (i = 0; i < VIVPOLL_TEXT_LINES && !redraw; i++)
				redraw = !vivpoll_text_span(buf->text[i], text[i],
							    &first[i], &len[i]);
		}
		if (redraw) {
			copy = dev->sizeimage;
			buf->pattern_gen = private ? run->pattern_gen : 0;
		}
	}

	if (copy) {
		mutex_unlock(&dev->gen_lock);
		vivpoll_engine_copy(vbuf, run->pattern, copy);
		mutex_lock(&dev->gen_lock);
	}
	if (redraw) {
		for (i = 0; i < VIVPOLL_TEXT_LINES; i++) {
			first[i] = 0;
			len[i] = strlen(text[i]);
		}
	}
	tpg_calc_text_basep(tpg, basep, 0, vbuf);
	for (i = 0; i < VIVPOLL_TEXT_LINES; i++) {
		if (!len[i])
			continue;
		memcpy(part, text[i] + first[i], len[i]);
		part[len[i]] = '\0';
		tpg_gen_text(tpg, basep, 16 + 16 * i, 16 + 8 * first[i], part);
	}
	memcpy(buf->text, text, sizeof(buf->text));
	mutex_unlock(&dev->gen_lock);
}

/*
 * Account one frame: fill @buf, timestamped @ts, and hand it back, or
 * count a drop if @buf is NULL.
 */
static void vivpoll_engine_deliver(struct vivpoll_dev *dev,
				   struct vivpoll_buffer *buf, u64 ts)
{
	enum vb2_buffer_state state = VB2_BUF_STATE_DONE;
	bool private = false;
	unsigned int index;
	u32 sequence;
	u8 *vbuf;

	spin_lock(&dev->lock);
	if (buf) {
		dev->stats.frames++;
		private = !dev->bufs_shared &&
			  buf->vb.vb2_buf.memory == VB2_MEMORY_MMAP;
	} else {
		dev->stats.drops++;
	}
	spin_unlock(&dev->lock);

	sequence = vivpoll_count_slot(&dev->run.counts, !!buf);
	if (!buf) {
		trace_vivpoll_frame(dev->inst, sequence, -1);
		vivpoll_dbg(2, dev, "frame %u dropped, no buffer\n", sequence);
		return;
	}

	index = buf->vb.vb2_buf.index;
	buf->vb.sequence = sequence;
	buf->vb.field = V4L2_FIELD_NONE;
	buf->vb.vb2_buf.timestamp = ts;
	vbuf = vb2_plane_vaddr(&buf->vb.vb2_buf, 0);
	if (vbuf)
		vivpoll_engine_fill(dev, buf, vbuf, private);
	else
		state = VB2_BUF_STATE_ERROR;
	trace_vivpoll_frame(dev->inst, sequence, index);
	vb2_buffer_done(&buf->vb.vb2_buf, state);
}

static void vivpoll_engine_frame_sync(struct vivpoll_dev *dev)
{
	struct v4l2_event ev = {
		.type = V4L2_EVENT_FRAME_SYNC,
		.u.frame_sync.frame_sequence = dev->run.counts.sequence,
	};

	v4l2_event_queue(&dev->vdev, &ev);
}

/* Produce the current frame slot: fill a buffer or count a drop */
static void vivpoll_engine_tick(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;
	struct vivpoll_buffer *buf;

	vivpoll_engine_frame_sync(dev);

	/*
	 * Like a DMA engine that latches its buffer when the frame is written
	 * out, take a buffer queued at any time during the frame slot.
	 */
	buf = vivpoll_engine_take_buffer(dev);
	if (!buf) {
		u64 end = run->start_ns +
			  vivpoll_frame_due_ns(run->slot + 1, &run->tpf);

		if (vivpoll_engine_wait(dev, end, true))
			return;
		buf = vivpoll_engine_take_buffer(dev);
	}

	vivpoll_engine_deliver(dev, buf, run->start_ns +
			       vivpoll_frame_due_ns(run->slot, &run->tpf));
	run->slot++;
}

/* Unthrottled: a frame for every queued buffer, as soon as it is queued */
static bool vivpoll_engine_unthrottled_tick(struct vivpoll_dev *dev)
{
	struct vivpoll_buffer *buf;

	if (vivpoll_engine_wait(dev, KTIME_MAX, true))
		return true;
	buf = vivpoll_engine_take_buffer(dev);
	if (buf) {
		u64 now = ktime_get_ns();

		vivpoll_engine_frame_sync(dev);
		vivpoll_engine_deliver(dev, buf, now);
	}
	return false;
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

static int vivpoll_engine_thread(void *data)
{
	struct vivpoll_dev *dev = data;
	struct vivpoll_run *run = &dev->run;

	vivpoll_dbg(1, dev, "engine thread started%s\n",
		    run->unthrottled ? ", unthrottled" : "");
	for (;;) {
		u64 due = run->start_ns +
			  vivpoll_frame_due_ns(run->slot, &run->tpf);
		u64 shift;

		if (run->unthrottled) {
			if (vivpoll_engine_unthrottled_tick(dev))
				break;
			cond_resched();
			continue;
		}
		if (vivpoll_engine_wait(dev, due, false))
			break;
		shift = vivpoll_time_base_shift_ns(run->slot,
						   ktime_get_ns() - run->start_ns,
						   &run->tpf);
		if (shift) {
			run->start_ns += shift;
			vivpoll_dbg(1, dev, "engine was held up for %llu us\n",
				    div_u64(shift, NSEC_PER_USEC));
		}
		vivpoll_engine_tick(dev);
		vivpoll_engine_update_interval(dev);
		cond_resched();
	}
	vivpoll_dbg(1, dev, "engine thread stopped\n");
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
	run->unthrottled = READ_ONCE(vivpoll_unthrottled);
	mutex_lock(&dev->gen_lock);
	run->tpf = dev->timeperframe;
	/*
	 * Zeroed: it is copied into buffers userspace sees. Without it,
	 * every frame is rendered: slower, but it works.
	 */
	run->pattern = __vmalloc(dev->sizeimage, GFP_KERNEL | __GFP_ZERO |
				 __GFP_NOWARN);
	mutex_unlock(&dev->gen_lock);
	run->start_ns = ktime_get_ns();
	run->stream_start_ns = run->start_ns;

	spin_lock(&dev->lock);
	dev->stats.engine_starts++;
	dev->stats.engine_running = true;
	spin_unlock(&dev->lock);
	trace_vivpoll_engine_start(dev->inst);

	thread = kthread_run(vivpoll_engine_thread, dev, "%s-engine",
			     dev->v4l2_dev.name);
	if (IS_ERR(thread)) {
		v4l2_err(&dev->v4l2_dev, "cannot start the engine thread\n");
		spin_lock(&dev->lock);
		dev->stats.engine_running = false;
		spin_unlock(&dev->lock);
		trace_vivpoll_engine_stop(dev->inst, 0, 0);
		vfree(run->pattern);
		run->pattern = NULL;
		return PTR_ERR(thread);
	}
	dev->engine = thread;
	return 0;
}

/* Stop the engine; called from the vb2 stop_streaming op */
void vivpoll_engine_stop(struct vivpoll_dev *dev)
{
	struct vivpoll_run *run = &dev->run;

	if (!dev->engine)
		return;

	kthread_stop(dev->engine);
	dev->engine = NULL;
	vfree(run->pattern);
	run->pattern = NULL;

	spin_lock(&dev->lock);
	dev->stats.engine_running = false;
	spin_unlock(&dev->lock);
	trace_vivpoll_engine_stop(dev->inst, run->counts.frames,
				  run->counts.drops);
	vivpoll_dbg(1, dev, "engine stopped after %llu frames, %llu drops\n",
		    run->counts.frames, run->counts.drops);
}

/*
 * Hand the buffers on @list to the engine. It is only woken up if it waits
 * for a buffer: in a frame slot without one, or when unthrottled.
 */
void vivpoll_engine_queue(struct vivpoll_dev *dev, struct list_head *list)
{
	bool wake;

	spin_lock(&dev->lock);
	list_splice_tail_init(list, &dev->buf_list);
	wake = dev->engine_wants_buffer;
	spin_unlock(&dev->lock);
	if (wake)
		wake_up(&dev->engine_wq);
}

/* Hand all buffers still owned by the driver back to vb2; needs dev->mutex */
void vivpoll_engine_return_buffers(struct vivpoll_dev *dev,
				   enum vb2_buffer_state state)
{
	struct vivpoll_buffer *buf, *tmp;
	LIST_HEAD(list);

	spin_lock(&dev->lock);
	list_splice_init(&dev->buf_list, &list);
	spin_unlock(&dev->lock);
	list_splice_tail_init(&dev->qbuf_list, &list);

	list_for_each_entry_safe(buf, tmp, &list, list) {
		list_del(&buf->list);
		vb2_buffer_done(&buf->vb.vb2_buf, state);
	}
}
