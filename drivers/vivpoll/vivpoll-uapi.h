/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * Private controls of the vivpoll capture driver
 *
 * This header only contains defines and can be included by applications.
 */

#ifndef _VIVPOLL_UAPI_H_
#define _VIVPOLL_UAPI_H_

#include <linux/v4l2-controls.h>

#define VIVPOLL_CID_CUSTOM_BASE		(V4L2_CID_USER_BASE | 0xf000)

/* boolean, read-only, volatile: the frame engine is running */
#define VIVPOLL_CID_ENGINE_RUNNING	(VIVPOLL_CID_CUSTOM_BASE + 0)
/* integer64, read-only, volatile: number of engine starts */
#define VIVPOLL_CID_ENGINE_STARTS	(VIVPOLL_CID_CUSTOM_BASE + 1)
/* integer64, read-only, volatile: number of frames produced */
#define VIVPOLL_CID_FRAMES		(VIVPOLL_CID_CUSTOM_BASE + 2)
/* integer64, read-only, volatile: number of frame slots without a buffer */
#define VIVPOLL_CID_DROPS		(VIVPOLL_CID_CUSTOM_BASE + 3)
/* button: raises V4L2_EVENT_EOS */
#define VIVPOLL_CID_RAISE_EOS		(VIVPOLL_CID_CUSTOM_BASE + 4)
/* boolean, default 1: the HDMI input has a signal */
#define VIVPOLL_CID_HDMI_SIGNAL		(VIVPOLL_CID_CUSTOM_BASE + 5)

/* Input indices, as used by VIDIOC_S_INPUT and V4L2_EVENT_SOURCE_CHANGE */
#define VIVPOLL_INPUT_CAMERA		0
#define VIVPOLL_INPUT_HDMI		1

#endif
