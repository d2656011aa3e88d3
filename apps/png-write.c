// SPDX-License-Identifier: GPL-2.0
/* Write an RGB24 image as PNG with libpng; see png-write.h. */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "png-write.h"

int vp_png_write(const char *path, const uint8_t *rgb, unsigned int width,
		 unsigned int height, size_t stride, char *err, size_t errlen)
{
	png_structp png = NULL;
	png_infop info = NULL;
	FILE *f;
	unsigned int y;
	/* volatile: modified between setjmp and a possible longjmp */
	volatile int failed = 0;

	f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL,
				      NULL);
	if (png)
		info = png_create_info_struct(png);
	if (!png || !info) {
		snprintf(err, errlen, "%s: libpng init failed", path);
		failed = 1;
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		snprintf(err, errlen, "%s: libpng write error", path);
		failed = 1;
		goto out;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	/* frames are written while streaming: favour speed over size */
	png_set_compression_level(png, 1);
	png_write_info(png, info);
	for (y = 0; y < height; y++)
		png_write_row(png, (png_const_bytep)(rgb + (size_t)y * stride));
	png_write_end(png, info);
out:
	if (png)
		png_destroy_write_struct(&png, info ? &info : NULL);
	if (fclose(f) && !failed) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		failed = 1;
	}
	if (failed)
		unlink(path);
	return failed ? -1 : 0;
}
