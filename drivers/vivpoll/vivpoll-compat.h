/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a kernel older than the driver's API needs, out of tree only
 *
 * vivpoll is written against the API of Linux 7.2. Kbuild's out-of-tree
 * block includes this header ahead of every source file; the in-tree
 * series (make series) never carries it: for an older tree it carries the
 * driver as written for that tree's API instead (tools/make-series.sh
 * makes the same changes there). Each shim gives an older kernel what the
 * driver expects of a newer one, and a newer kernel nothing. Which kernel
 * lacks what is found in its own files, not by its version: Kbuild's
 * feature tests define the VIVPOLL_COMPAT_* names below.
 */

#ifndef _VIVPOLL_COMPAT_H_
#define _VIVPOLL_COMPAT_H_

#include <linux/slab.h>

/* a kernel without the typed allocators (6.1; 6.12.y has them) */
#ifndef kzalloc_obj
#define kzalloc_obj(p)	kzalloc(sizeof(p), GFP_KERNEL)
#endif

/* 6.13 made a symbol namespace a string; before, the macro stringified it */
#ifdef VIVPOLL_COMPAT_NS_WORD
#include <linux/module.h>

#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

/*
 * Since 6.13, vb2 releases q->lock itself while a blocking VIDIOC_DQBUF or
 * read() waits for a buffer (7.0 removed the ops that did it before).
 * Before, only the wait_prepare and wait_finish ops released it: where
 * struct vb2_ops still has them, the driver's one vb2_ops table
 * (vivpoll-vid-cap.c) gets them here, and stays const. struct vb2_ops is
 * defined above; from here on, the designator of its last member in that
 * table, .stop_streaming, is preceded by the two. Any other use of the
 * name in the driver would not compile. On 6.13 to 6.19 vb2 would release
 * the lock without them; with them it calls them instead, to the same end.
 */
#ifdef VIVPOLL_COMPAT_VB2_WAIT_OPS
#include <media/videobuf2-v4l2.h>

#define stop_streaming				\
	wait_prepare = vb2_ops_wait_prepare,	\
	.wait_finish = vb2_ops_wait_finish,	\
	.stop_streaming
#endif

/*
 * vb2_video_unregister_device() stops streaming and frees the buffers
 * whoever owns the queue; 6.1's only did for a queue with an owner (6.12.y
 * does: Kbuild looks for the owner test in the tree's videobuf2-v4l2.c and
 * takes this shim where it finds it, or where the tree has no vb2 sources,
 * as a header-only tree). The read() emulator makes its file the owner when vb2_read()
 * returns, and a blocking read() waits for its first frame with the queue
 * lock released: the engine it started has no owner yet. So stop the
 * queue here too, under its lock, after the node is unregistered: the
 * driver's start_streaming refuses an unregistered node. Where vb2 did it
 * already, the queue is released twice, which changes nothing.
 */
#ifdef VIVPOLL_COMPAT_VB2_UNREG_OWNER
#include <media/v4l2-dev.h>
#include <media/videobuf2-v4l2.h>

static inline void
vivpoll_compat_vb2_video_unregister_device(struct video_device *vdev)
{
	vb2_video_unregister_device(vdev);
	mutex_lock(vdev->queue->lock);
	vb2_queue_release(vdev->queue);
	vdev->queue->owner = NULL;
	mutex_unlock(vdev->queue->lock);
}

#define vb2_video_unregister_device vivpoll_compat_vb2_video_unregister_device
#endif

/*
 * Until 6.11 a platform driver's .remove returned int, and a void one was
 * .remove_new. The platform_driver structure is defined above: the name
 * from here on is the driver's .remove; a member of that name in a
 * structure defined later (i2c, spi, acpi drivers) is renamed alike in
 * the structure and in its every use, which changes nothing.
 */
#ifdef VIVPOLL_COMPAT_REMOVE_INT
#include <linux/platform_device.h>

#define remove remove_new
#endif

#endif
