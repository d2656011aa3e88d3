/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Control IDs of the vivpoll class
 *
 * Driver-private, like vivid's: applications find these controls by name
 * (v4l2-ctl -l); the test programs of this driver include this header.
 */

#ifndef _VIVPOLL_CIDS_H_
#define _VIVPOLL_CIDS_H_

#include <linux/v4l2-controls.h>

/* A control class of its own, next to vivid's 0x00f00000 */
#define VIVPOLL_CID_VIVPOLL_CLASS	(0x00f10000 | 1)
#define VIVPOLL_CID_VIVPOLL_BASE	(0x00f10000 | 0xf000)

/* boolean, read-only: the frame engine is running */
#define VIVPOLL_CID_ENGINE_RUNNING	(VIVPOLL_CID_VIVPOLL_BASE + 0)
/* integer64, read-only: number of engine starts */
#define VIVPOLL_CID_ENGINE_STARTS	(VIVPOLL_CID_VIVPOLL_BASE + 1)
/* integer64, read-only: number of frames produced */
#define VIVPOLL_CID_FRAMES		(VIVPOLL_CID_VIVPOLL_BASE + 2)
/* integer64, read-only: number of frame slots without a buffer */
#define VIVPOLL_CID_DROPS		(VIVPOLL_CID_VIVPOLL_BASE + 3)
/* boolean, default 1: input 1, Camera 2, has a signal */
#define VIVPOLL_CID_CAM2_SIGNAL		(VIVPOLL_CID_VIVPOLL_BASE + 4)

/* Input indices, as used by VIDIOC_S_INPUT and V4L2_EVENT_SOURCE_CHANGE */
#define VIVPOLL_INPUT_CAMERA		0
#define VIVPOLL_INPUT_CAM2		1

#endif
