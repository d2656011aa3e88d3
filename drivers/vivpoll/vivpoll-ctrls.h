/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Controls and events of the vivpoll capture driver
 */

#ifndef _VIVPOLL_CTRLS_H_
#define _VIVPOLL_CTRLS_H_

#include <linux/types.h>

struct v4l2_ctrl;
struct v4l2_event_subscription;
struct v4l2_fh;
struct vivpoll_dev;

int vivpoll_ctrls_init(struct vivpoll_dev *dev);
void vivpoll_ctrl_add(struct v4l2_ctrl *ctrl, u64 n);
int vivpoll_subscribe_event(struct v4l2_fh *fh,
			    const struct v4l2_event_subscription *sub);

#endif
