/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated capture DMA engine
 */

#ifndef _VIVPOLL_ENGINE_H_
#define _VIVPOLL_ENGINE_H_

#include <media/videobuf2-core.h>

struct vivpoll_dev;

int vivpoll_engine_start(struct vivpoll_dev *dev);
void vivpoll_engine_stop(struct vivpoll_dev *dev);
void vivpoll_engine_return_buffers(struct vivpoll_dev *dev,
				   enum vb2_buffer_state state);

#endif
