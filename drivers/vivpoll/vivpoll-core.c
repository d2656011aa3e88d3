// SPDX-License-Identifier: GPL-2.0-only
/*
 * Platform driver and registration of vivpoll
 *
 * vivpoll is a virtual V4L2 capture driver that makes the events a poll()
 * or select() asks for observable: its .poll traces poll_requested_events()
 * (the vivpoll_poll trace event) and the frame engine can only be started
 * by vb2 start_streaming, that is by VIDIOC_STREAMON, read() or a poll()
 * for POLLIN.
 *
 * Each of the n_devs devices is a platform device vivpoll.N with its own
 * video node, so it can be unbound and bound through sysfs. The device
 * structure is freed by the v4l2_device release callback, after the last
 * open file handle is gone.
 */

#include <linux/font.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <media/v4l2-event.h>

#include "vivpoll-core.h"
#include "vivpoll-ctrls.h"
#include "vivpoll-engine.h"
#include "vivpoll-vid-cap.h"

#define CREATE_TRACE_POINTS
#include "vivpoll_trace.h"

MODULE_DESCRIPTION("Virtual capture driver observing poll requested events");
MODULE_AUTHOR("The vivpoll authors");
MODULE_LICENSE("GPL");

/* A value out of range fails the load: the module loader says which */
static int vivpoll_n_devs_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, VIVPOLL_MAX_DEVS);
}

static const struct kernel_param_ops vivpoll_n_devs_ops = {
	.set = vivpoll_n_devs_set,
	.get = param_get_uint,
};

static unsigned int n_devs = 1;
module_param_cb(n_devs, &vivpoll_n_devs_ops, &n_devs, 0444);
MODULE_PARM_DESC(n_devs, " number of capture devices, 1-8 (default 1)");

static struct platform_device *vivpoll_pdevs[VIVPOLL_MAX_DEVS];

/* Called when the last reference to the v4l2_device is dropped */
static void vivpoll_dev_release(struct v4l2_device *v4l2_dev)
{
	struct vivpoll_dev *dev = container_of(v4l2_dev, struct vivpoll_dev,
					       v4l2_dev);

	v4l2_ctrl_handler_free(&dev->ctrl_handler);
	v4l2_device_unregister(&dev->v4l2_dev);
	tpg_free(&dev->tpg);
	mutex_destroy(&dev->gen_lock);
	mutex_destroy(&dev->mutex);
	kfree(dev);
}

static int vivpoll_probe(struct platform_device *pdev)
{
	struct vivpoll_dev *dev;
	struct video_device *vdev;
	int ret;

	dev = kzalloc_obj(*dev);
	if (!dev)
		return -ENOMEM;

	dev->inst = pdev->id;
	snprintf(dev->v4l2_dev.name, sizeof(dev->v4l2_dev.name), "%s-%u",
		 VIVPOLL_NAME, dev->inst);
	ret = v4l2_device_register(&pdev->dev, &dev->v4l2_dev);
	if (ret) {
		kfree(dev);
		return ret;
	}
	/* From here on, v4l2_device_put() frees everything */
	dev->v4l2_dev.release = vivpoll_dev_release;
	mutex_init(&dev->mutex);
	mutex_init(&dev->gen_lock);
	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->buf_list);

	tpg_init(&dev->tpg, 640, 480);
	ret = tpg_alloc(&dev->tpg, VIVPOLL_MAX_WIDTH);
	if (ret)
		goto put_dev;
	vivpoll_vid_cap_init(dev);

	ret = vivpoll_ctrls_init(dev);
	if (ret)
		goto put_dev;

	ret = vivpoll_vid_cap_queue_init(dev);
	if (ret)
		goto put_dev;

	vdev = &dev->vdev;
	strscpy(vdev->name, dev->v4l2_dev.name, sizeof(vdev->name));
	vdev->fops = &vivpoll_fops;
	vdev->ioctl_ops = &vivpoll_ioctl_ops;
	vdev->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING |
			    V4L2_CAP_READWRITE;
	vdev->release = video_device_release_empty;
	vdev->v4l2_dev = &dev->v4l2_dev;
	vdev->queue = &dev->queue;
	vdev->lock = &dev->mutex;
	video_set_drvdata(vdev, dev);

	ret = video_register_device(vdev, VFL_TYPE_VIDEO, -1);
	if (ret)
		goto put_dev;

	platform_set_drvdata(pdev, dev);
	v4l2_info(&dev->v4l2_dev, "registered as %s\n",
		  video_device_node_name(vdev));
	return 0;

put_dev:
	v4l2_device_put(&dev->v4l2_dev);
	return ret;
}

/*
 * Unbind: from here on the video node is gone for new opens and every
 * ioctl on an open file fails with ENODEV. vb2_video_unregister_device()
 * unregisters the node, which wakes up event waiters (a poll() then returns
 * EPOLLERR | EPOLLHUP | EPOLLPRI), then stops streaming under the queue
 * lock, whoever owns the queue (the read() emulator's may have no owner
 * yet: a blocking read() waits for its first frame with the lock released),
 * which wakes up a blocked VIDIOC_DQBUF, and frees the buffers; after it,
 * vivpoll_start_streaming() refuses the unregistered node. The structure
 * lives on until the last file handle is closed.
 */
static void vivpoll_remove(struct platform_device *pdev)
{
	struct vivpoll_dev *dev = platform_get_drvdata(pdev);

	v4l2_info(&dev->v4l2_dev, "unregistering %s\n",
		  video_device_node_name(&dev->vdev));
	vb2_video_unregister_device(&dev->vdev);
	v4l2_device_put(&dev->v4l2_dev);
}

static struct platform_driver vivpoll_pdrv = {
	.probe = vivpoll_probe,
	.remove = vivpoll_remove,
	.driver = {
		.name = VIVPOLL_NAME,
		/* vivpoll_init() sees whether a device probed */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

static void vivpoll_unregister_pdevs(void)
{
	int i;

	for (i = VIVPOLL_MAX_DEVS - 1; i >= 0; i--)
		platform_device_unregister(vivpoll_pdevs[i]);
}

static int __init vivpoll_init(void)
{
	const struct font_desc *font;
	unsigned int i;
	int ret;

	font = find_font("VGA8x16");
	if (!font) {
		pr_err("%s: cannot find the VGA8x16 font\n", VIVPOLL_NAME);
		return -ENODEV;
	}
	tpg_set_font(font->data);

	ret = platform_driver_register(&vivpoll_pdrv);
	if (ret)
		return ret;

	for (i = 0; i < n_devs; i++) {
		struct platform_device *pdev;

		pdev = platform_device_register_simple(VIVPOLL_NAME, i,
						       NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto unregister;
		}
		vivpoll_pdevs[i] = pdev;
		/* all n_devs devices or none: a failed probe unwinds all */
		if (!platform_get_drvdata(pdev)) {
			dev_err(&pdev->dev, "probe failed, unregistering all\n");
			ret = -ENODEV;
			goto unregister;
		}
	}
	return 0;

unregister:
	vivpoll_unregister_pdevs();
	platform_driver_unregister(&vivpoll_pdrv);
	return ret;
}

static void __exit vivpoll_exit(void)
{
	vivpoll_unregister_pdevs();
	platform_driver_unregister(&vivpoll_pdrv);
}

module_init(vivpoll_init);
module_exit(vivpoll_exit);
