// SPDX-License-Identifier: GPL-2.0-only
/*
 * Controls and events of the vivpoll capture driver
 *
 * The picture controls feed the test pattern generator. The controls of
 * the vivpoll class (see vivpoll-cids.h) show the engine counters and
 * switch the signal of input 1 (Camera 2). The counters are read-only
 * controls the driver sets when they change, so that every reader
 * (VIDIOC_G_EXT_CTRLS, control events, VIDIOC_LOG_STATUS) sees the same
 * values. Events, all signalled through POLLPRI: control changes, source
 * changes and a FRAME_SYNC event at the start of every frame while
 * streaming.
 */

#include <linux/kernel.h>
#include <media/v4l2-event.h>
#include <media/v4l2-fh.h>

#include "vivpoll-core.h"
#include "vivpoll-ctrls.h"

/* Depth of the per file handle queues of the non-control events */
#define VIVPOLL_EVENT_ELEMS	4

static struct vivpoll_dev *ctrl_to_vivpoll(struct v4l2_ctrl *ctrl)
{
	return container_of(ctrl->handler, struct vivpoll_dev, ctrl_handler);
}

/*
 * The signal of input @input changed. v4l2_ctrl_handler_setup() runs s_ctrl
 * before the video device exists: there is nobody to tell yet, and its
 * file handle list is not set up.
 */
static void vivpoll_queue_source_change(struct vivpoll_dev *dev,
					unsigned int input)
{
	const struct v4l2_event ev = {
		.type = V4L2_EVENT_SOURCE_CHANGE,
		.id = input,
		.u.src_change.changes = V4L2_EVENT_SRC_CH_RESOLUTION,
	};

	if (video_is_registered(&dev->vdev))
		v4l2_event_queue(&dev->vdev, &ev);
}

static int vivpoll_s_ctrl(struct v4l2_ctrl *ctrl)
{
	struct vivpoll_dev *dev = ctrl_to_vivpoll(ctrl);

	if (ctrl->id == VIVPOLL_CID_CAM2_SIGNAL) {
		mutex_lock(&dev->gen_lock);
		dev->cam2_signal = ctrl->val;
		mutex_unlock(&dev->gen_lock);
		vivpoll_queue_source_change(dev, VIVPOLL_INPUT_CAM2);
		return 0;
	}

	mutex_lock(&dev->gen_lock);
	switch (ctrl->id) {
	case V4L2_CID_BRIGHTNESS:
		tpg_s_brightness(&dev->tpg, ctrl->val);
		break;
	case V4L2_CID_CONTRAST:
		tpg_s_contrast(&dev->tpg, ctrl->val);
		break;
	case V4L2_CID_SATURATION:
		tpg_s_saturation(&dev->tpg, ctrl->val);
		break;
	case V4L2_CID_HUE:
		tpg_s_hue(&dev->tpg, ctrl->val);
		break;
	case V4L2_CID_TEST_PATTERN:
		tpg_s_pattern(&dev->tpg, ctrl->val);
		break;
	}
	vivpoll_pattern_changed(dev);
	mutex_unlock(&dev->gen_lock);
	return 0;
}

static const struct v4l2_ctrl_ops vivpoll_ctrl_ops = {
	.s_ctrl = vivpoll_s_ctrl,
};

static const struct v4l2_ctrl_config vivpoll_ctrl_class = {
	.flags = V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_WRITE_ONLY,
	.id = VIVPOLL_CID_VIVPOLL_CLASS,
	.name = "Vivpoll Controls",
	.type = V4L2_CTRL_TYPE_CTRL_CLASS,
};

static const struct v4l2_ctrl_config vivpoll_ctrl_cam2_signal = {
	.ops = &vivpoll_ctrl_ops,
	.id = VIVPOLL_CID_CAM2_SIGNAL,
	.name = "Camera 2 Signal Present",
	.type = V4L2_CTRL_TYPE_BOOLEAN,
	.max = 1,
	.step = 1,
	.def = 1,
};

/*
 * A read-only control of the vivpoll class, a boolean or a 64-bit counter:
 * the driver sets it, and has no operation to run when it does
 */
static struct v4l2_ctrl *vivpoll_new_ro(struct v4l2_ctrl_handler *hdl, u32 id,
					const char *name,
					enum v4l2_ctrl_type type)
{
	const struct v4l2_ctrl_config cfg = {
		.id = id,
		.name = name,
		.type = type,
		.max = type == V4L2_CTRL_TYPE_BOOLEAN ? 1 : S64_MAX,
		.step = 1,
		.flags = V4L2_CTRL_FLAG_READ_ONLY,
	};

	return v4l2_ctrl_new_custom(hdl, &cfg, NULL);
}

int vivpoll_ctrls_init(struct vivpoll_dev *dev)
{
	struct v4l2_ctrl_handler *hdl = &dev->ctrl_handler;
	const struct v4l2_ctrl_ops *ops = &vivpoll_ctrl_ops;
	int ret;

	v4l2_ctrl_handler_init(hdl, 11);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_BRIGHTNESS, 0, 255, 1, 128);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_CONTRAST, 0, 255, 1, 128);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_SATURATION, 0, 255, 1, 128);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_HUE, -128, 128, 1, 0);
	v4l2_ctrl_new_std_menu_items(hdl, ops, V4L2_CID_TEST_PATTERN,
				     TPG_PAT_NOISE, 0, TPG_PAT_75_COLORBAR,
				     tpg_pattern_strings);
	v4l2_ctrl_new_custom(hdl, &vivpoll_ctrl_class, NULL);
	dev->ctrl_running = vivpoll_new_ro(hdl, VIVPOLL_CID_ENGINE_RUNNING,
					   "Engine Running",
					   V4L2_CTRL_TYPE_BOOLEAN);
	dev->ctrl_starts = vivpoll_new_ro(hdl, VIVPOLL_CID_ENGINE_STARTS,
					  "Engine Starts",
					  V4L2_CTRL_TYPE_INTEGER64);
	dev->ctrl_frames = vivpoll_new_ro(hdl, VIVPOLL_CID_FRAMES,
					  "Frames Produced",
					  V4L2_CTRL_TYPE_INTEGER64);
	dev->ctrl_drops = vivpoll_new_ro(hdl, VIVPOLL_CID_DROPS,
					 "Frames Dropped",
					 V4L2_CTRL_TYPE_INTEGER64);
	v4l2_ctrl_new_custom(hdl, &vivpoll_ctrl_cam2_signal, NULL);

	ret = hdl->error;
	if (ret) {
		v4l2_err(&dev->v4l2_dev, "cannot create controls: %d\n", ret);
		return ret;
	}

	dev->v4l2_dev.ctrl_handler = hdl;
	return v4l2_ctrl_handler_setup(hdl);
}

/*
 * Add @n to a counter control, the counter's only copy; called by the
 * engine, which holds no control lock
 */
void vivpoll_ctrl_add(struct v4l2_ctrl *ctrl, u64 n)
{
	v4l2_ctrl_lock(ctrl);
	__v4l2_ctrl_s_ctrl_int64(ctrl, *ctrl->p_cur.p_s64 + n);
	v4l2_ctrl_unlock(ctrl);
}

int vivpoll_subscribe_event(struct v4l2_fh *fh,
			    const struct v4l2_event_subscription *sub)
{
	switch (sub->type) {
	case V4L2_EVENT_CTRL:
		return v4l2_ctrl_subscribe_event(fh, sub);
	case V4L2_EVENT_SOURCE_CHANGE:
		return v4l2_src_change_event_subscribe(fh, sub);
	case V4L2_EVENT_FRAME_SYNC:
		return v4l2_event_subscribe(fh, sub, VIVPOLL_EVENT_ELEMS, NULL);
	default:
		return -EINVAL;
	}
}
