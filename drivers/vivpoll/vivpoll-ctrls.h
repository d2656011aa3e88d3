/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Controls and events of the vivpoll capture driver
 */

#ifndef _VIVPOLL_CTRLS_H_
#define _VIVPOLL_CTRLS_H_

#include <linux/types.h>

struct v4l2_event_subscription;
struct v4l2_fh;
struct vivpoll_dev;

int vivpoll_ctrls_init(struct vivpoll_dev *dev);
void vivpoll_ctrls_free(struct vivpoll_dev *dev);
void vivpoll_ctrls_engine_running(struct vivpoll_dev *dev, bool running);
void vivpoll_ctrls_engine_started(struct vivpoll_dev *dev);
void vivpoll_ctrls_count(struct vivpoll_dev *dev, u64 frames, u64 drops);
int vivpoll_subscribe_event(struct v4l2_fh *fh,
			    const struct v4l2_event_subscription *sub);
void vivpoll_queue_source_change(struct vivpoll_dev *dev, unsigned int input);

#endif
