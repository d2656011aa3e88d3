/* SPDX-License-Identifier: GPL-2.0 */
/* Write an RGB24 image as PNG (libpng). */
#ifndef VIVPOLL_PNG_WRITE_H
#define VIVPOLL_PNG_WRITE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write width x height RGB24 pixels (stride bytes per row) to path.
 * Returns 0, or -1 with a message in err.
 */
int vp_png_write(const char *path, const uint8_t *rgb, unsigned int width,
		 unsigned int height, size_t stride, char *err, size_t errlen);

#endif
