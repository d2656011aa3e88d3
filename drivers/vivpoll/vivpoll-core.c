// SPDX-License-Identifier: GPL-2.0-only
/*
 * Platform driver, registration and debugfs of vivpoll
 *
 * vivpoll is a virtual V4L2 capture driver that makes the events a poll()
 * or select() asks for observable: its .poll records poll_requested_events()
 * (in debugfs, which no control can show without an ioctl of its own) and
 * the frame engine can only be started by vb2 start_streaming, that is by
 * VIDIOC_STREAMON, read() or a poll() for POLLIN.
 *
 * Each of the n_devs devices is a platform device vivpoll.N with its own
 * video node, so it can be unbound and bound through sysfs. The device
 * structure is freed by the v4l2_device release callback, after the last
 * open file handle is gone.
 */

#include <linux/debugfs.h>
#include <linux/font.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <media/v4l2-event.h>

#include "vivpoll-core.h"
#include "vivpoll-ctrls.h"
#include "vivpoll-engine.h"
#include "vivpoll-vid-cap.h"

#define CREATE_TRACE_POINTS
#include "vivpoll_trace.h"

MODULE_DESCRIPTION("Virtual video capture driver observing poll requested events");
MODULE_AUTHOR("The vivpoll authors");
MODULE_LICENSE("GPL");

static unsigned int n_devs = 1;
module_param(n_devs, uint, 0444);
MODULE_PARM_DESC(n_devs, " number of capture devices to create, 1-8 (default 1)");

static bool no_read;
module_param(no_read, bool, 0444);
MODULE_PARM_DESC(no_read, " no read() I/O: no V4L2_CAP_READWRITE, no vb2 read() emulator (default 0)");

unsigned int vivpoll_debug;
module_param_named(debug, vivpoll_debug, uint, 0644);
MODULE_PARM_DESC(debug, " debug level, 0-2 (default 0)");

static struct platform_device *vivpoll_pdevs[VIVPOLL_MAX_DEVS];
static struct dentry *vivpoll_debugfs_root;

void vivpoll_get_poll_stats(struct vivpoll_dev *dev,
			    struct vivpoll_poll_stats *stats)
{
	spin_lock(&dev->lock);
	*stats = dev->poll_stats;
	spin_unlock(&dev->lock);
}

/* debugfs: what the .poll calls requested, which no control says */

static int vivpoll_dbgfs_poll_calls_get(void *data, u64 *val)
{
	struct vivpoll_poll_stats stats;

	vivpoll_get_poll_stats(data, &stats);
	*val = stats.calls;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vivpoll_dbgfs_poll_calls_fops,
			 vivpoll_dbgfs_poll_calls_get, NULL, "%llu\n");

static int vivpoll_dbgfs_poll_req_last_get(void *data, u64 *val)
{
	struct vivpoll_poll_stats stats;

	vivpoll_get_poll_stats(data, &stats);
	*val = (__force u32)stats.req_last;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(vivpoll_dbgfs_poll_req_last_fops,
			 vivpoll_dbgfs_poll_req_last_get, NULL, "0x%08llx\n");

/* poll_req_seen: reading shows the OR of the masks, writing resets it */
static ssize_t vivpoll_dbgfs_req_seen_read(struct file *file,
					   char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	struct vivpoll_poll_stats stats;
	char buf[16];
	int len;

	vivpoll_get_poll_stats(file->private_data, &stats);
	len = scnprintf(buf, sizeof(buf), "0x%08x\n",
			(__force u32)stats.req_seen);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t vivpoll_dbgfs_req_seen_write(struct file *file,
					    const char __user *ubuf,
					    size_t count, loff_t *ppos)
{
	struct vivpoll_dev *dev = file->private_data;

	spin_lock(&dev->lock);
	dev->poll_stats.req_seen = 0;
	spin_unlock(&dev->lock);
	return count;
}

static const struct file_operations vivpoll_dbgfs_req_seen_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vivpoll_dbgfs_req_seen_read,
	.write = vivpoll_dbgfs_req_seen_write,
	.llseek = default_llseek,
};

static void vivpoll_debugfs_init(struct vivpoll_dev *dev)
{
	struct dentry *dir;

	dir = debugfs_create_dir(dev->v4l2_dev.name, vivpoll_debugfs_root);
	dev->debugfs_dir = dir;
	debugfs_create_file_unsafe("poll_calls", 0444, dir, dev,
				   &vivpoll_dbgfs_poll_calls_fops);
	debugfs_create_file_unsafe("poll_req_last", 0444, dir, dev,
				   &vivpoll_dbgfs_poll_req_last_fops);
	debugfs_create_file("poll_req_seen", 0644, dir, dev,
			    &vivpoll_dbgfs_req_seen_fops);
}

/* Called when the last reference to the v4l2_device is dropped */
static void vivpoll_dev_release(struct v4l2_device *v4l2_dev)
{
	struct vivpoll_dev *dev = container_of(v4l2_dev, struct vivpoll_dev,
					       v4l2_dev);

	vivpoll_ctrls_free(dev);
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

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;

	dev->inst = pdev->id;
	mutex_init(&dev->mutex);
	mutex_init(&dev->gen_lock);
	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->buf_list);
	INIT_LIST_HEAD(&dev->qbuf_list);
	init_waitqueue_head(&dev->engine_wq);

	snprintf(dev->v4l2_dev.name, sizeof(dev->v4l2_dev.name), "%s-%u",
		 VIVPOLL_NAME, dev->inst);
	ret = v4l2_device_register(&pdev->dev, &dev->v4l2_dev);
	if (ret) {
		mutex_destroy(&dev->gen_lock);
		mutex_destroy(&dev->mutex);
		kfree(dev);
		return ret;
	}
	/* From here on, v4l2_device_put() frees everything */
	dev->v4l2_dev.release = vivpoll_dev_release;

	tpg_init(&dev->tpg, 640, 480);
	ret = tpg_alloc(&dev->tpg, VIVPOLL_MAX_WIDTH);
	if (ret)
		goto put_dev;
	vivpoll_vid_cap_init(dev);

	ret = vivpoll_ctrls_init(dev);
	if (ret)
		goto put_dev;

	ret = vivpoll_vid_cap_queue_init(dev, !no_read);
	if (ret)
		goto put_dev;

	vdev = &dev->vdev;
	strscpy(vdev->name, dev->v4l2_dev.name, sizeof(vdev->name));
	vdev->fops = no_read ? &vivpoll_fops_no_read : &vivpoll_fops;
	vdev->ioctl_ops = &vivpoll_ioctl_ops;
	vdev->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
	if (!no_read)
		vdev->device_caps |= V4L2_CAP_READWRITE;
	vdev->release = video_device_release_empty;
	vdev->v4l2_dev = &dev->v4l2_dev;
	vdev->queue = &dev->queue;
	vdev->lock = &dev->mutex;
	video_set_drvdata(vdev, dev);

	ret = video_register_device(vdev, VFL_TYPE_VIDEO, -1);
	if (ret)
		goto put_dev;

	vivpoll_debugfs_init(dev);
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
 * stops streaming, which wakes up a blocked VIDIOC_DQBUF, and frees the
 * buffers; video_unregister_device() wakes up event waiters, and a poll()
 * then returns EPOLLERR | EPOLLHUP | EPOLLPRI. The structure lives on until
 * the last file handle is closed.
 */
static void vivpoll_remove(struct platform_device *pdev)
{
	struct vivpoll_dev *dev = platform_get_drvdata(pdev);

	v4l2_info(&dev->v4l2_dev, "unregistering %s\n",
		  video_device_node_name(&dev->vdev));
	debugfs_remove_recursive(dev->debugfs_dir);
	dev->debugfs_dir = NULL;
	vb2_video_unregister_device(&dev->vdev);
	v4l2_device_put(&dev->v4l2_dev);
}

static struct platform_driver vivpoll_pdrv = {
	.probe = vivpoll_probe,
	.remove_new = vivpoll_remove,
	.driver = {
		.name = VIVPOLL_NAME,
	},
};

static void vivpoll_unregister_pdevs(void)
{
	int i;

	for (i = VIVPOLL_MAX_DEVS - 1; i >= 0; i--) {
		platform_device_unregister(vivpoll_pdevs[i]);
		vivpoll_pdevs[i] = NULL;
	}
}

static int __init vivpoll_init(void)
{
	const struct font_desc *font;
	unsigned int i;
	int ret;

	if (n_devs < 1 || n_devs > VIVPOLL_MAX_DEVS) {
		pr_err("%s: n_devs=%u is out of range, must be 1-%u\n",
		       VIVPOLL_NAME, n_devs, VIVPOLL_MAX_DEVS);
		return -EINVAL;
	}

	font = find_font("VGA8x16");
	if (!font) {
		pr_err("%s: cannot find the VGA8x16 font\n", VIVPOLL_NAME);
		return -ENODEV;
	}
	tpg_set_font(font->data);

	vivpoll_debugfs_root = debugfs_create_dir(VIVPOLL_NAME, NULL);

	ret = platform_driver_register(&vivpoll_pdrv);
	if (ret)
		goto remove_debugfs;

	for (i = 0; i < n_devs; i++) {
		struct platform_device *pdev;

		pdev = platform_device_register_simple(VIVPOLL_NAME, i,
						       NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto unregister;
		}
		vivpoll_pdevs[i] = pdev;
	}
	return 0;

unregister:
	vivpoll_unregister_pdevs();
	platform_driver_unregister(&vivpoll_pdrv);
remove_debugfs:
	debugfs_remove_recursive(vivpoll_debugfs_root);
	return ret;
}

static void __exit vivpoll_exit(void)
{
	vivpoll_unregister_pdevs();
	platform_driver_unregister(&vivpoll_pdrv);
	debugfs_remove_recursive(vivpoll_debugfs_root);
}

module_init(vivpoll_init);
module_exit(vivpoll_exit);
