// SPDX-License-Identifier: GPL-2.0-only
/*
 * Video capture queue, formats and ioctls
 *
 * A single-planar capture queue with MMAP, USERPTR, DMABUF and read() I/O
 * on vmalloc buffers; packed YUV, RGB and GREY formats at a few discrete
 * frame sizes and intervals. A poll() that asks for POLLIN may start the
 * read() emulator and so the engine; a wait for events alone takes neither
 * the queue nor its lock. A trace event records what the caller asked for.
 */

#include <linux/kernel.h>
#include <linux/poll.h>
#include <linux/timekeeping.h>
#include <linux/videodev2.h>
#include <media/v4l2-common.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-event.h>
#include <media/v4l2-fh.h>
#include <media/videobuf2-vmalloc.h>

#include "vivpoll-core.h"
#include "vivpoll-ctrls.h"
#include "vivpoll-engine.h"
#include "vivpoll_trace.h"
#include "vivpoll-vid-cap.h"

static const char * const vivpoll_input_names[VIVPOLL_NUM_INPUTS] = {
	[VIVPOLL_INPUT_CAMERA] = "Camera",
	[VIVPOLL_INPUT_CAM2] = "Camera 2",
};

/* vb2 queue operations, all called with dev->mutex held */

/*
 * VIDIOC_REQBUFS (*nplanes == 0) is raised to the buffers the engine needs;
 * VIDIOC_CREATE_BUFS gets the count it asked for, in buffers of at most
 * VIVPOLL_MAX_PLANE_SIZE.
 */
static int vivpoll_queue_setup(struct vb2_queue *vq, unsigned int *nbuffers,
			       unsigned int *nplanes, unsigned int sizes[],
			       struct device *alloc_devs[])
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vq);

	*nbuffers = vivpoll_buffers_to_allocate(*nbuffers, *nplanes,
						vb2_fileio_is_active(vq));
	if (*nplanes) {
		if (*nplanes != 1 ||
		    !vivpoll_plane_size_ok(sizes[0], dev->pix.sizeimage)) {
			dev_dbg(dev->v4l2_dev.dev,
				"CREATE_BUFS: bad size %u (%u to %u)\n",
				sizes[0], dev->pix.sizeimage,
				VIVPOLL_MAX_PLANE_SIZE);
			return -EINVAL;
		}
		return 0;
	}

	*nplanes = 1;
	sizes[0] = dev->pix.sizeimage;
	return 0;
}

static int vivpoll_buf_prepare(struct vb2_buffer *vb)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vb->vb2_queue);

	if (vb2_plane_size(vb, 0) < dev->pix.sizeimage) {
		dev_dbg(dev->v4l2_dev.dev, "buffer too small (%lu < %u)\n",
			vb2_plane_size(vb, 0), dev->pix.sizeimage);
		return -EINVAL;
	}
	vb2_set_plane_payload(vb, 0, dev->pix.sizeimage);
	return 0;
}

static void vivpoll_buf_queue(struct vb2_buffer *vb)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vb->vb2_queue);
	struct vivpoll_buffer *buf = to_vivpoll_buffer(to_vb2_v4l2_buffer(vb));

	/*
	 * Stamped for the engine, which fills no buffer queued after its slot
	 * ended, and may fill this one before VIDIOC_QBUF returns
	 */
	buf->queued_ns = ktime_get_ns();
	spin_lock(&dev->lock);
	list_add_tail(&buf->list, &dev->buf_list);
	spin_unlock(&dev->lock);
}

/*
 * v4l2_poll() and v4l2_read() check that the node is registered before
 * vb2_fop_poll() and vb2_fop_read() take the queue lock: a call blocked on
 * the lock while vivpoll_remove() runs gets here after the unregistration.
 * The queue lock is held, and vb2_video_unregister_device() takes it after
 * the node is unregistered: an engine started before is stopped there, none
 * after.
 */
static int vivpoll_start_streaming(struct vb2_queue *vq, unsigned int count)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vq);
	int ret;

	ret = video_is_registered(&dev->vdev) ? vivpoll_engine_start(dev) :
		-ENODEV;
	if (ret)
		vivpoll_engine_return_buffers(dev, VB2_BUF_STATE_QUEUED);
	return ret;
}

static void vivpoll_stop_streaming(struct vb2_queue *vq)
{
	struct vivpoll_dev *dev = vb2_get_drv_priv(vq);

	vivpoll_engine_stop(dev);
	vivpoll_engine_return_buffers(dev, VB2_BUF_STATE_ERROR);
}

static const struct vb2_ops vivpoll_qops = {
	.queue_setup = vivpoll_queue_setup,
	.buf_prepare = vivpoll_buf_prepare,
	.buf_queue = vivpoll_buf_queue,
	.start_streaming = vivpoll_start_streaming,
	.stop_streaming = vivpoll_stop_streaming,
};

/* Formats */

/*
 * The colorimetry of the pixels v4l2-tpg draws in @fmt, which
 * vivpoll_set_format() configures the tpg with: sRGB, full range R'G'B',
 * BT.601 limited range Y'CbCr. GREY is the exception: the tpg draws luma
 * with fixed Rec. 709 weights at full range (its TGP_COLOR_ENC_LUMA path
 * ignores the encoding and quantization it is given), so that is what
 * GREY says.
 */
static void vivpoll_colorimetry(const struct vivpoll_fmt *fmt,
				struct v4l2_pix_format *pix)
{
	pix->colorspace = V4L2_COLORSPACE_SRGB;
	pix->xfer_func = V4L2_MAP_XFER_FUNC_DEFAULT(pix->colorspace);
	if (fmt->fourcc == V4L2_PIX_FMT_GREY) {
		pix->ycbcr_enc = V4L2_YCBCR_ENC_709;
		pix->quantization = V4L2_QUANTIZATION_FULL_RANGE;
		return;
	}
	pix->ycbcr_enc = V4L2_MAP_YCBCR_ENC_DEFAULT(pix->colorspace);
	pix->quantization = V4L2_MAP_QUANTIZATION_DEFAULT(!fmt->is_yuv,
							  pix->colorspace,
							  pix->ycbcr_enc);
}

static void vivpoll_fill_pix(struct v4l2_pix_format *pix,
			     const struct vivpoll_fmt *fmt,
			     u32 width, u32 height)
{
	pix->width = width;
	pix->height = height;
	pix->pixelformat = fmt->fourcc;
	pix->field = V4L2_FIELD_NONE;
	pix->bytesperline = vivpoll_bytesperline(fmt, width);
	pix->sizeimage = vivpoll_sizeimage(fmt, width, height);
	vivpoll_colorimetry(fmt, pix);
	pix->flags = 0;
}

/* Make @fmt at @width x @height current; called with gen_lock held */
static void vivpoll_set_format(struct vivpoll_dev *dev,
			       const struct vivpoll_fmt *fmt,
			       u32 width, u32 height)
{
	const struct v4l2_rect rect = { 0, 0, width, height };
	struct v4l2_pix_format *pix = &dev->pix;
	struct tpg_data *tpg = &dev->tpg;

	vivpoll_fill_pix(pix, fmt, width, height);
	vivpoll_pattern_changed(dev);

	tpg_s_fourcc(tpg, fmt->fourcc);
	tpg_s_colorspace(tpg, pix->colorspace);
	tpg_s_xfer_func(tpg, pix->xfer_func);
	tpg_s_ycbcr_enc(tpg, pix->ycbcr_enc);
	tpg_s_quantization(tpg, pix->quantization);
	tpg_reset_source(tpg, width, height, V4L2_FIELD_NONE);
	tpg_s_bytesperline(tpg, 0, pix->bytesperline);
	tpg_s_buf_height(tpg, height);
	tpg_s_field(tpg, V4L2_FIELD_NONE, false);
	tpg_s_crop_compose(tpg, &rect, &rect);
	tpg_update_mv_step(tpg);
}

static int vivpoll_querycap(struct file *file, void *priv,
			    struct v4l2_capability *cap)
{
	/* bus_info is set by the core: platform:vivpoll.N */
	strscpy(cap->driver, VIVPOLL_NAME, sizeof(cap->driver));
	strscpy(cap->card, VIVPOLL_NAME, sizeof(cap->card));
	return 0;
}

static int vivpoll_enum_fmt(struct file *file, void *priv,
			    struct v4l2_fmtdesc *f)
{
	if (f->index >= ARRAY_SIZE(vivpoll_formats))
		return -EINVAL;
	f->pixelformat = vivpoll_formats[f->index].fourcc;
	return 0;
}

static int vivpoll_g_fmt(struct file *file, void *priv, struct v4l2_format *f)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	f->fmt.pix = dev->pix;
	return 0;
}

static int vivpoll_try_fmt(struct file *file, void *priv,
			   struct v4l2_format *f)
{
	struct v4l2_pix_format *pix = &f->fmt.pix;
	const struct v4l2_frmsize_discrete *size;
	const struct vivpoll_fmt *fmt;

	fmt = vivpoll_find_format(pix->pixelformat);
	if (!fmt)
		fmt = &vivpoll_formats[0];
	size = vivpoll_nearest_size(pix->width, pix->height);
	vivpoll_fill_pix(pix, fmt, size->width, size->height);
	return 0;
}

static int vivpoll_s_fmt(struct file *file, void *priv, struct v4l2_format *f)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	struct v4l2_pix_format *pix = &f->fmt.pix;
	int ret;

	ret = vivpoll_try_fmt(file, priv, f);
	if (ret)
		return ret;
	if (vb2_is_busy(&dev->queue))
		return -EBUSY;

	mutex_lock(&dev->gen_lock);
	vivpoll_set_format(dev, vivpoll_find_format(pix->pixelformat),
			   pix->width, pix->height);
	mutex_unlock(&dev->gen_lock);
	return 0;
}

static int vivpoll_enum_framesizes(struct file *file, void *priv,
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

static int vivpoll_enum_frameintervals(struct file *file, void *priv,
				       struct v4l2_frmivalenum *fival)
{
	const struct v4l2_frmsize_discrete *size;

	size = vivpoll_nearest_size(fival->width, fival->height);
	if (!vivpoll_find_format(fival->pixel_format) ||
	    size->width != fival->width || size->height != fival->height)
		return -EINVAL;
	if (fival->index >= ARRAY_SIZE(vivpoll_intervals))
		return -EINVAL;
	fival->type = V4L2_FRMIVAL_TYPE_DISCRETE;
	fival->discrete = vivpoll_intervals[fival->index];
	return 0;
}

static int vivpoll_g_parm(struct file *file, void *priv,
			  struct v4l2_streamparm *parm)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	struct v4l2_captureparm *cp = &parm->parm.capture;

	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;

	cp->capability = V4L2_CAP_TIMEPERFRAME;
	cp->capturemode = 0;
	cp->timeperframe = dev->timeperframe;
	cp->readbuffers = VIVPOLL_READ_BUFFERS;
	return 0;
}

/* Allowed while streaming: the engine picks the new interval up */
static int vivpoll_s_parm(struct file *file, void *priv,
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
	return vivpoll_g_parm(file, priv, parm);
}

static int vivpoll_enum_input(struct file *file, void *priv,
			      struct v4l2_input *inp)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	if (inp->index >= VIVPOLL_NUM_INPUTS)
		return -EINVAL;

	inp->type = V4L2_INPUT_TYPE_CAMERA;
	strscpy(inp->name, vivpoll_input_names[inp->index], sizeof(inp->name));
	if (inp->index == VIVPOLL_INPUT_CAM2) {
		mutex_lock(&dev->gen_lock);
		if (!dev->cam2_signal)
			inp->status = V4L2_IN_ST_NO_SIGNAL;
		mutex_unlock(&dev->gen_lock);
	}
	return 0;
}

static int vivpoll_g_input(struct file *file, void *priv, unsigned int *i)
{
	struct vivpoll_dev *dev = video_drvdata(file);

	*i = dev->input;
	return 0;
}

static int vivpoll_s_input(struct file *file, void *priv, unsigned int i)
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

/*
 * A caller that does not ask for POLLIN waits for events alone: for a
 * capture queue vb2_poll() then only adds the queue's wait queue (which
 * epoll needs, should EPOLL_CTL_MOD ask for POLLIN later) and reports a
 * pending event, neither of which needs the queue lock that
 * vb2_fop_poll() takes. This is what poll_requested_events() is for.
 *
 * What the caller asked for is only traced: the core logs it too, at
 * dev_debug 0x10 (V4L2_DEV_DEBUG_POLL). Nothing else on the hot path.
 */
static __poll_t vivpoll_poll(struct file *file, poll_table *wait)
{
	struct vivpoll_dev *dev = video_drvdata(file);
	__poll_t req = poll_requested_events(wait);
	__poll_t res;

	if (req & (EPOLLIN | EPOLLRDNORM)) {
		res = vb2_fop_poll(file, wait);
	} else {
		poll_wait(file, &dev->queue.done_wq, wait);
		res = v4l2_ctrl_poll(file, wait);
	}
	trace_vivpoll_poll(dev->inst, (__force u32)req, (__force u32)res);
	return res;
}

const struct v4l2_file_operations vivpoll_fops = {
	.owner = THIS_MODULE,
	.open = v4l2_fh_open,
	.release = vb2_fop_release,
	.read = vb2_fop_read,
	.poll = vivpoll_poll,
	.unlocked_ioctl = video_ioctl2,
	.mmap = vb2_fop_mmap,
};

const struct v4l2_ioctl_ops vivpoll_ioctl_ops = {
	.vidioc_querycap = vivpoll_querycap,
	.vidioc_enum_fmt_vid_cap = vivpoll_enum_fmt,
	.vidioc_g_fmt_vid_cap = vivpoll_g_fmt,
	.vidioc_try_fmt_vid_cap = vivpoll_try_fmt,
	.vidioc_s_fmt_vid_cap = vivpoll_s_fmt,
	.vidioc_enum_framesizes = vivpoll_enum_framesizes,
	.vidioc_enum_frameintervals = vivpoll_enum_frameintervals,
	.vidioc_g_parm = vivpoll_g_parm,
	.vidioc_s_parm = vivpoll_s_parm,

	.vidioc_enum_input = vivpoll_enum_input,
	.vidioc_g_input = vivpoll_g_input,
	.vidioc_s_input = vivpoll_s_input,

	.vidioc_reqbufs = vb2_ioctl_reqbufs,
	.vidioc_create_bufs = vb2_ioctl_create_bufs,
	.vidioc_prepare_buf = vb2_ioctl_prepare_buf,
	.vidioc_querybuf = vb2_ioctl_querybuf,
	.vidioc_qbuf = vb2_ioctl_qbuf,
	.vidioc_dqbuf = vb2_ioctl_dqbuf,
	.vidioc_expbuf = vb2_ioctl_expbuf,
	.vidioc_streamon = vb2_ioctl_streamon,
	.vidioc_streamoff = vb2_ioctl_streamoff,

	.vidioc_log_status = v4l2_ctrl_log_status,
	.vidioc_subscribe_event = vivpoll_subscribe_event,
	.vidioc_unsubscribe_event = v4l2_event_unsubscribe,
};

/* Set up the default format, input and frame interval */
void vivpoll_vid_cap_init(struct vivpoll_dev *dev)
{
	mutex_lock(&dev->gen_lock);
	dev->input = VIVPOLL_INPUT_CAMERA;
	dev->cam2_signal = true;
	dev->timeperframe = vivpoll_intervals[VIVPOLL_DEF_INTERVAL];
	vivpoll_set_format(dev, &vivpoll_formats[0], 640, 480);
	mutex_unlock(&dev->gen_lock);
}

int vivpoll_vid_cap_queue_init(struct vivpoll_dev *dev)
{
	struct vb2_queue *q = &dev->queue;

	q->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	q->io_modes = VB2_MMAP | VB2_USERPTR | VB2_DMABUF | VB2_READ;
	q->drv_priv = dev;
	q->buf_struct_size = sizeof(struct vivpoll_buffer);
	q->ops = &vivpoll_qops;
	q->mem_ops = &vb2_vmalloc_memops;
	/* taken when the frame is done, one exposure after its start */
	q->timestamp_flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC |
			     V4L2_BUF_FLAG_TSTAMP_SRC_EOF;
	q->lock = &dev->mutex;
	q->dev = dev->v4l2_dev.dev;
	return vb2_queue_init(q);
}
