/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Video capture queue, formats and ioctls
 */

#ifndef _VIVPOLL_VID_CAP_H_
#define _VIVPOLL_VID_CAP_H_

#include <media/v4l2-dev.h>
#include <media/v4l2-ioctl.h>

struct vivpoll_dev;

extern const struct v4l2_file_operations vivpoll_fops;
extern const struct v4l2_ioctl_ops vivpoll_ioctl_ops;

void vivpoll_vid_cap_init(struct vivpoll_dev *dev);
int vivpoll_vid_cap_queue_init(struct vivpoll_dev *dev);

#endif
