// SPDX-License-Identifier: GPL-2.0-only
/*
 * Video capture queue, formats and ioctls
 *
 * A single-planar capture queue with MMAP, USERPTR, DMABUF and read() I/O
 * on vmalloc buffers. The formats are packed YUV, RGB and GREY at a few
 * discrete frame sizes and frame intervals. The .poll file operation
 * records the events the caller asked for before it hands over to
 * vb2_fop_poll(), which may start the read() emulator and so the engine.
 */

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/videodev2.h>
#include <media/v4l2-common.h>
#include <media/v4l2-event.h>
#include <media/v4l2-fh.h>
#include <media/videobuf2-memops.h>
#include <media/videobuf2-vmalloc.h>

#include "vivpoll-core.h"
#include "vivpoll-ctrls.h"
#include "vivpoll-engine.h"
#include "vivpoll-trace.h"
#include "vivpoll-vid-cap.h"

static const char * const vivpoll_input_names[VIVPOLL_NUM_INPUTS] = {
	[VIVPOLL_INPUT_CAMERA] = "Camera",
	[VIVPOLL_INPUT_HDMI] = "HDMI",
};

/* vb2 queue operations, all called with dev->mutex held */

/* Buffers allocated on the queue (a bitmap since Linux 6.8, a count before) */
static unsigned int vid_cap_num_buffers(struct vb2_queue *vq)
{
#ifdef VIVPOLL_HAVE_VB2_GET_NUM_BUFFERS
	return vb2_get_num_buffers(vq);
#else
	return vq->num_buffers;
#endif
}

static int vid_cap_queue_setup(struct vb2_queue *vq, unsigned int *nbuffers,
			       unsigned int *nplanes, unsigned int sizes[],
			       struct device *alloc_devs[])
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vq);
	unsigned int allocated = vid_cap_num_buffers(vq);

	if (allocated + *nbuffers < VIVPOLL_MIN_BUFFERS)
		*nbuffers = VIVPOLL_MIN_BUFFERS - allocated;

	/* New buffers: none is mapped writable or exported yet */
	if (!allocated) {
		spin_lock(&dev->lock);
		dev->bufs_shared = false;
		spin_unlock(&dev->lock);
	}

	if (*nplanes)
		return *nplanes != 1 || sizes[0] < dev->sizeimage ? -EINVAL : 0;

	*nplanes = 1;
	sizes[0] = dev->sizeimage;
	return 0;
}

static int vid_cap_buf_prepare(struct vb2_buffer *vb)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vb->vb2_queue);

	if (vb2_plane_size(vb, 0) < dev->sizeimage) {
		vivpoll_dbg(1, dev, "buffer too small (%lu < %u)\n",
			    vb2_plane_size(vb, 0), dev->sizeimage);
		return -EINVAL;
	}
	vb2_set_plane_payload(vb, 0, dev->sizeimage);
	return 0;
}

static void vid_cap_buf_queue(struct vb2_buffer *vb)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vb->vb2_queue);
	struct vivpoll_buffer *buf = to_vivpoll_buffer(to_vb2_v4l2_buffer(vb));
	LIST_HEAD(list);

	/* Within VIDIOC_QBUF: vid_cap_qbuf() hands the buffer on */
	if (dev->in_qbuf) {
		list_add_tail(&buf->list, &dev->qbuf_list);
		return;
	}

	list_add_tail(&buf->list, &list);
	vivpoll_engine_queue(dev, &list);
}

static int vid_cap_start_streaming(struct vb2_queue *vq, unsigned int count)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vq);
	int ret;

	ret = vivpoll_engine_start(dev);
	if (ret)
		vivpoll_engine_return_buffers(dev, VB2_BUF_STATE_QUEUED);
	return ret;
}

static void vid_cap_stop_streaming(struct vb2_queue *vq)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vq);

	vivpoll_engine_stop(dev);
	vivpoll_engine_return_buffers(dev, VB2_BUF_STATE_ERROR);
}

static const struct vb2_ops vid_cap_qops = {
	.queue_setup = vid_cap_queue_setup,
	.buf_prepare = vid_cap_buf_prepare,
	.buf_queue = vid_cap_buf_queue,
	.start_streaming = vid_cap_start_streaming,
	.stop_streaming = vid_cap_stop_streaming,
	.wait_prepare = vb2_ops_wait_prepare,
	.wait_finish = vb2_ops_wait_finish,
};

/* Formats */

static void vid_cap_fill_pix(struct v4l2_pix_format *pix,
			     const struct vivpoll_fmt *fmt,
			     u32 width, u32 height)
{
	pix->width = width;
	pix->height = height;
	pix->pixelformat = fmt->fourcc;
	pix->field = V4L2_FIELD_NONE;
	pix->bytesperline = vivpoll_bytesperline(fmt, width);
	pix->sizeimage = vivpoll_sizeimage(fmt, width, height);
	pix->colorspace = V4L2_COLORSPACE_SRGB;
	pix->xfer_func = V4L2_MAP_XFER_FUNC_DEFAULT(pix->colorspace);
	pix->ycbcr_enc = V4L2_MAP_YCBCR_ENC_DEFAULT(pix->colorspace);
	pix->quantization = V4L2_MAP_QUANTIZATION_DEFAULT(!fmt->is_yuv,
							  pix->colorspace,
							  pix->ycbcr_enc);
	pix->flags = 0;
}

/* Make @fmt at @width x @height current; called with gen_lock held */
static void vid_cap_set_format(struct vivpoll_dev *dev,
			       const struct vivpoll_fmt *fmt,
			       u32 width, u32 height)
{
	struct tpg_data *tpg = &dev->tpg;
	const struct v4l2_rect rect = { 0, 0, width, height };

	dev->fmt = fmt;
	dev->width = width;
	dev->height = height;
	dev->bytesperline = vivpoll_bytesperline(fmt, width);
	dev->sizeimage = vivpoll_sizeimage(fmt, width, height);
	vivpoll_pattern_changed(dev);

	tpg_s_fourcc(tpg, fmt->fourcc);
	tpg_reset_source(tpg, width, height, V4L2_FIELD_NONE);
	tpg_s_bytesperline(tpg, 0, dev->bytesperline);
	tpg_s_buf_height(tpg, height);
	tpg_s_field(tpg, V4L2_FIELD_NONE, false);
	tpg_s_crop_compose(tpg, &rect, &rect);
	tpg_update_mv_step(tpg);
}

static int vid_cap_querycap(struct file *file, void *priv,
			    struct v4l2_capability *cap)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	strscpy(cap->driver, VIVPOLL_NAME, sizeof(cap->driver));
	strscpy(cap->card, VIVPOLL_NAME, sizeof(cap->card));
	/* "platform:" and v4l2_dev.name, in a form gcc can bound (W=1) */
	snprintf(cap->bus_info, sizeof(cap->bus_info), "platform:%s-%u",
		 VIVPOLL_NAME, dev->inst);
	return 0;
}

static int vid_cap_enum_fmt(struct file *file, void *priv,
			    struct v4l2_fmtdesc *f)
{
	if (f->index >= ARRAY_SIZE(vivpoll_formats))
		return -EINVAL;
	f->pixelformat = vivpoll_formats[f->index].fourcc;
	return 0;
}

static int vid_cap_g_fmt(struct file *file, void *priv, struct v4l2_format *f)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	vid_cap_fill_pix(&f->fmt.pix, dev->fmt, dev->width, dev->height);
	return 0;
}

static int vid_cap_try_fmt(struct file *file, void *priv,
			   struct v4l2_format *f)
{
	struct v4l2_pix_format *pix = &f->fmt.pix;
	const struct v4l2_frmsize_discrete *size;
	const struct vivpoll_fmt *fmt;

	fmt = vivpoll_find_format(pix->pixelformat);
	if (!fmt)
		fmt = &vivpoll_formats[0];
	size = vivpoll_nearest_size(pix->width, pix->height);
	vid_cap_fill_pix(pix, fmt, size->width, size->height);
	return 0;
}

static int vid_cap_s_fmt(struct file *file, void *priv, struct v4l2_format *f)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	struct v4l2_pix_format *pix = &f->fmt.pix;
	int ret;

	ret = vid_cap_try_fmt(file, priv, f);
	if (ret)
		return ret;
	if (vb2_is_busy(&dev->queue))
		return -EBUSY;

	mutex_lock(&dev->gen_lock);
	vid_cap_set_format(dev, vivpoll_find_format(pix->pixelformat),
			   pix->width, pix->height);
	mutex_unlock(&dev->gen_lock);
	return 0;
}

static int vid_cap_enum_framesizes(struct file *file, void *priv,
				   struct v4l2_frmsizeenum *fsize)
{
	if (!vivpoll_find_format(fsize->pixel_format))
		return -EINVAL;
	if (fsize->index >= ARRAY_SIZE(vivpoll_sizes))
		return -EINVAL;
	fsize->type = V4L2_FRMSIZE_TYPE_DISCRETE;
	fsize->discrete = vivpoll_sizes[fsize->index];
	return 0;
}

static int vid_cap_enum_frameintervals(struct file *file, void *priv,
				       struct v4l2_frmivalenum *fival)
{
	if (!vivpoll_find_format(fival->pixel_format))
		return -EINVAL;
	if (!vivpoll_size_is_valid(fival->width, fival->height))
		return -EINVAL;
	if (fival->index >= ARRAY_SIZE(vivpoll_intervals))
		return -EINVAL;
	fival->type = V4L2_FRMIVAL_TYPE_DISCRETE;
	fival->discrete = vivpoll_intervals[fival->index];
	return 0;
}

static int vid_cap_g_parm(struct file *file, void *priv,
			  struct v4l2_streamparm *parm)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	struct v4l2_captureparm *cp = &parm->parm.capture;

	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;

	cp->capability = V4L2_CAP_TIMEPERFRAME;
	cp->capturemode = 0;
	cp->timeperframe = dev->timeperframe;
	cp->extendedmode = 0;
	cp->readbuffers = VIVPOLL_MIN_BUFFERS;
	return 0;
}

/* Allowed while streaming: the engine picks the new interval up */
static int vid_cap_s_parm(struct file *file, void *priv,
			  struct v4l2_streamparm *parm)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	unsigned int i;

	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;

	i = vivpoll_nearest_interval(&parm->parm.capture.timeperframe);
	mutex_lock(&dev->gen_lock);
	dev->timeperframe = vivpoll_intervals[i];
	mutex_unlock(&dev->gen_lock);
	return vid_cap_g_parm(file, priv, parm);
}

/*
 * vb2_core_qbuf() passes the buffer to buf_queue before it fills in the
 * v4l2_buffer that VIDIOC_QBUF returns. The engine can fill a buffer at
 * once, and if it completed one in between, VIDIOC_QBUF would return it
 * with V4L2_BUF_FLAG_DONE set. So buffers queued by VIDIOC_QBUF only go
 * to the engine when vb2 is done with the ioctl.
 */
static int vid_cap_qbuf(struct file *file, void *priv, struct v4l2_buffer *p)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	int ret;

	dev->in_qbuf = true;
	ret = vb2_ioctl_qbuf(file, priv, p);
	dev->in_qbuf = false;

	if (!list_empty(&dev->qbuf_list))
		vivpoll_engine_queue(dev, &dev->qbuf_list);
	return ret;
}

/*
 * The engine redraws only the text of a frame if the buffer still holds
 * the test pattern from its last use (see vivpoll_engine_fill()). That
 * needs the buffer to be written by no one else: once a buffer is exported,
 * or mapped writable (see vivpoll_mmap()), every frame is a full copy
 * until the buffers are freed and allocated again.
 */
static void vivpoll_set_bufs_shared(struct vivpoll_dev *dev)
{
	bool was_shared;

	spin_lock(&dev->lock);
	was_shared = dev->bufs_shared;
	dev->bufs_shared = true;
	spin_unlock(&dev->lock);
	if (!was_shared)
		vivpoll_dbg(1, dev, "buffers shared, full copies from now on\n");
}

static int vid_cap_expbuf(struct file *file, void *priv,
			  struct v4l2_exportbuffer *p)
{
	int ret = vb2_ioctl_expbuf(file, priv, p);

	/* Only an export that worked shares a buffer (vdev->lock held) */
	if (!ret)
		vivpoll_set_bufs_shared(video_drvdata(file));
	return ret;
}

static int vid_cap_enum_input(struct file *file, void *priv,
			      struct v4l2_input *inp)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	if (inp->index >= VIVPOLL_NUM_INPUTS)
		return -EINVAL;

	inp->type = V4L2_INPUT_TYPE_CAMERA;
	strscpy(inp->name, vivpoll_input_names[inp->index], sizeof(inp->name));
	if (inp->index == VIVPOLL_INPUT_HDMI) {
		mutex_lock(&dev->gen_lock);
		if (!dev->hdmi_signal)
			inp->status = V4L2_IN_ST_NO_SIGNAL;
		mutex_unlock(&dev->gen_lock);
	}
	return 0;
}

static int vid_cap_g_input(struct file *file, void *priv, unsigned int *i)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	*i = dev->input;
	return 0;
}

static int vid_cap_s_input(struct file *file, void *priv, unsigned int i)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	if (i >= VIVPOLL_NUM_INPUTS)
		return -EINVAL;
	if (i == dev->input)
		return 0;
	if (vb2_is_busy(&dev->queue))
		return -EBUSY;

	mutex_lock(&dev->gen_lock);
	dev->input = i;
	mutex_unlock(&dev->gen_lock);
	return 0;
}

static int vid_cap_log_status(struct file *file, void *priv)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	struct vivpoll_stats stats;
	bool hdmi_signal;

	mutex_lock(&dev->gen_lock);
	hdmi_signal = dev->hdmi_signal;
	mutex_unlock(&dev->gen_lock);
	vivpoll_get_stats(dev, &stats);

	v4l2_info(&dev->v4l2_dev, "input: %s, HDMI signal: %s\n",
		  vivpoll_input_names[dev->input], hdmi_signal ? "yes" : "no");
	v4l2_info(&dev->v4l2_dev, "format: %p4cc %ux%u, %u/%u s per frame\n",
		  &dev->fmt->fourcc, dev->width, dev->height,
		  dev->timeperframe.numerator, dev->timeperframe.denominator);
	v4l2_info(&dev->v4l2_dev,
		  "engine: %s, %llu starts, %llu frames, %llu drops\n",
		  stats.engine_running ? "running" : "stopped",
		  stats.engine_starts, stats.frames, stats.drops);
	v4l2_info(&dev->v4l2_dev,
		  "poll: %llu calls, last events 0x%08x, seen 0x%08x\n",
		  stats.poll_calls, (__force u32)stats.poll_req_last,
		  (__force u32)stats.poll_req_seen);
	return v4l2_ctrl_log_status(file, priv);
}

static __poll_t vivpoll_poll(struct file *file, poll_table *wait)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	__poll_t req = poll_requested_events(wait);
	__poll_t res;

	spin_lock(&dev->lock);
	dev->stats.poll_calls++;
	dev->stats.poll_req_last = req;
	dev->stats.poll_req_seen |= req;
	spin_unlock(&dev->lock);

	/* An unlocked peek at the queue, only used for a debug message */
	if (vivpoll_poll_may_start_engine(req, vb2_is_busy(&dev->queue)))
		vivpoll_dbg(1, dev, "poll for events 0x%08x may start read()\n",
			    (__force u32)req);

	res = vb2_fop_poll(file, wait);
	trace_vivpoll_poll(dev->inst, (__force u32)req, (__force u32)res);
	return res;
}

/*
 * A read-only mapping of a buffer keeps vb2's vm_ops, plus an mprotect hook
 * that sees it made writable. vb2 needs VM_SHARED, so the file is open for
 * writing and VM_MAYWRITE is set: mprotect() may add PROT_WRITE later.
 *
 * This relies on vb2_common_vm_ops (vb2-vmalloc's mappings) having only
 * .open and .close, as in Linux 6.1 to 6.12; any other vm_ops is left
 * alone and the buffers count as shared. A vb2 core flag ("the buffer may
 * have been written by userspace") would be the upstream way to do this.
 */
static void vivpoll_vm_open(struct vm_area_struct *vma)
{
	vb2_common_vm_ops.open(vma);
}

static void vivpoll_vm_close(struct vm_area_struct *vma)
{
	vb2_common_vm_ops.close(vma);
}

static int vivpoll_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
			       unsigned long end, unsigned long newflags)
{
	if (newflags & VM_WRITE)
		vivpoll_set_bufs_shared(video_drvdata(vma->vm_file));
	return 0;
}

static const struct vm_operations_struct vivpoll_vm_ops_ro = {
	.open = vivpoll_vm_open,
	.close = vivpoll_vm_close,
	.mprotect = vivpoll_vm_mprotect,
};

static int vivpoll_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	ret = vb2_fop_mmap(file, vma);
	if (ret)
		return ret;
	if (!(vma->vm_flags & VM_WRITE) && vma->vm_ops == &vb2_common_vm_ops)
		vma->vm_ops = &vivpoll_vm_ops_ro;
	else
		vivpoll_set_bufs_shared(video_drvdata(file));
	return 0;
}

const struct v4l2_file_operations vivpoll_fops = {
	.owner = THIS_MODULE,
	.open = v4l2_fh_open,
	.release = vb2_fop_release,
	.read = vb2_fop_read,
	.poll = vivpoll_poll,
	.unlocked_ioctl = video_ioctl2,
	.mmap = vivpoll_mmap,
};

const struct v4l2_ioctl_ops vivpoll_ioctl_ops = {
	.vidioc_querycap = vid_cap_querycap,
	.vidioc_enum_fmt_vid_cap = vid_cap_enum_fmt,
	.vidioc_g_fmt_vid_cap = vid_cap_g_fmt,
	.vidioc_try_fmt_vid_cap = vid_cap_try_fmt,
	.vidioc_s_fmt_vid_cap = vid_cap_s_fmt,
	.vidioc_enum_framesizes = vid_cap_enum_framesizes,
	.vidioc_enum_frameintervals = vid_cap_enum_frameintervals,
	.vidioc_g_parm = vid_cap_g_parm,
	.vidioc_s_parm = vid_cap_s_parm,

	.vidioc_enum_input = vid_cap_enum_input,
	.vidioc_g_input = vid_cap_g_input,
	.vidioc_s_input = vid_cap_s_input,

	.vidioc_reqbufs = vb2_ioctl_reqbufs,
	.vidioc_create_bufs = vb2_ioctl_create_bufs,
	.vidioc_prepare_buf = vb2_ioctl_prepare_buf,
	.vidioc_querybuf = vb2_ioctl_querybuf,
	.vidioc_qbuf = vid_cap_qbuf,
	.vidioc_dqbuf = vb2_ioctl_dqbuf,
	.vidioc_expbuf = vid_cap_expbuf,
	.vidioc_streamon = vb2_ioctl_streamon,
	.vidioc_streamoff = vb2_ioctl_streamoff,

	.vidioc_log_status = vid_cap_log_status,
	.vidioc_subscribe_event = vivpoll_subscribe_event,
	.vidioc_unsubscribe_event = v4l2_event_unsubscribe,
};

/* Set up the default format, input and frame interval */
void vivpoll_vid_cap_init(struct vivpoll_dev *dev)
{
	mutex_lock(&dev->gen_lock);
	dev->input = VIVPOLL_INPUT_CAMERA;
	dev->hdmi_signal = true;
	dev->timeperframe = vivpoll_intervals[VIVPOLL_DEF_INTERVAL];
	vid_cap_set_format(dev, &vivpoll_formats[0], 640, 480);
	mutex_unlock(&dev->gen_lock);
}

int vivpoll_vid_cap_queue_init(struct vivpoll_dev *dev)
{
	struct vb2_queue *q = &dev->queue;

	q->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	q->io_modes = VB2_MMAP | VB2_USERPTR | VB2_DMABUF | VB2_READ;
	q->drv_priv = dev;
	q->buf_struct_size = sizeof(struct vivpoll_buffer);
	q->ops = &vid_cap_qops;
	q->mem_ops = &vb2_vmalloc_memops;
	q->timestamp_flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC |
			     V4L2_BUF_FLAG_TSTAMP_SRC_SOE;
	q->lock = &dev->mutex;
	q->dev = dev->v4l2_dev.dev;
	return vb2_queue_init(q);
}
