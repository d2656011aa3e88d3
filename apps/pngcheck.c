// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-pngcheck: decode PNG files completely with libpng and check their
 * size (and that they are not blank), for the capture test.
 */
#include <errno.h>
#include <getopt.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct opts {
	unsigned int width, height;	/* 0: any */
	bool not_flat;			/* require at least 2 distinct pixels */
};

struct info {
	png_uint_32 width, height;
	int color, depth;
	bool flat;
	png_bytep row;		/* row buffer, freed by check_png() */
};

/* Everything after png_init_io(); may longjmp out on a libpng error. */
static int decode(png_structp png, png_infop pinfo, struct info *inf,
		  char *err, size_t errlen)
{
	unsigned char px[8];
	bool first = true;
	size_t rowbytes, psz, x;
	png_uint_32 y;

	png_read_info(png, pinfo);
	inf->width = png_get_image_width(png, pinfo);
	inf->height = png_get_image_height(png, pinfo);
	inf->color = png_get_color_type(png, pinfo);
	inf->depth = png_get_bit_depth(png, pinfo);
	if (png_get_interlace_type(png, pinfo) != PNG_INTERLACE_NONE)
		png_set_interlace_handling(png);
	png_read_update_info(png, pinfo);
	rowbytes = png_get_rowbytes(png, pinfo);
	inf->row = malloc(rowbytes);
	if (!inf->row) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	psz = inf->width ? rowbytes / inf->width : 1;
	if (psz > sizeof(px))
		psz = sizeof(px);
	inf->flat = true;
	for (y = 0; y < inf->height; y++) {
		png_read_row(png, inf->row, NULL);
		for (x = 0; x + psz <= rowbytes && inf->flat; x += psz) {
			if (first) {
				memcpy(px, inf->row + x, psz);
				first = false;
			} else if (memcmp(px, inf->row + x, psz)) {
				inf->flat = false;
			}
		}
	}
	png_read_end(png, NULL);
	return 0;
}

/*
 * Decode the whole image (so CRC and zlib errors are found), fill *inf.
 * Returns 0 or -1 with a message in err.
 */
static int check_png(const char *path, struct info *inf, char *err,
		     size_t errlen)
{
	png_structp png = NULL;
	png_infop pinfo = NULL;
	unsigned char sig[8];
	volatile int ret = -1;
	FILE *f;

	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (fread(sig, 1, 8, f) != 8 || png_sig_cmp(sig, 0, 8)) {
		snprintf(err, errlen, "not a PNG file (bad signature)");
		goto out;
	}
	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		pinfo = png_create_info_struct(png);
	if (!png || !pinfo) {
		snprintf(err, errlen, "libpng init failed");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		snprintf(err, errlen, "corrupt PNG data");
		goto out;
	}
	png_init_io(png, f);
	png_set_sig_bytes(png, 8);
	ret = decode(png, pinfo, inf, err, errlen);
out:
	free(inf->row);
	inf->row = NULL;
	if (png)
		png_destroy_read_struct(&png, pinfo ? &pinfo : NULL, NULL);
	fclose(f);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vivpoll-pngcheck [--size WxH] [--not-flat] FILE...\n"
"Decode each PNG file completely; check its size and, with --not-flat,\n"
"that it is not a single colour. Prints 'valid FILE WxH ...' or 'INVALID FILE: why'.\n"
"Exit status: 0 all ok, 1 some file failed, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "not-flat", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct opts o = { 0 };
	struct info inf;
	char err[256];
	int c, i, failed = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:Fh", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (vp_parse_size(optarg, &o.width, &o.height)) {
				fprintf(stderr, "vivpoll-pngcheck: --size "
					"needs WxH, not '%s'\n", optarg);
				return VP_EXIT_USAGE;
			}
			break;
		case 'F':
			o.not_flat = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "vivpoll-pngcheck: bad option '%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return VP_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vivpoll-pngcheck: no files given\n");
		usage(stderr);
		return VP_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		memset(&inf, 0, sizeof(inf));
		if (check_png(argv[i], &inf, err, sizeof(err))) {
			printf("INVALID %s: %s\n", argv[i], err);
			failed = 1;
		} else if (o.width && (inf.width != o.width ||
				       inf.height != o.height)) {
			printf("INVALID %s: %ux%u, expected %ux%u\n", argv[i],
			       (unsigned int)inf.width,
			       (unsigned int)inf.height, o.width, o.height);
			failed = 1;
		} else if (o.not_flat && inf.flat) {
			printf("INVALID %s: a single colour\n", argv[i]);
			failed = 1;
		} else {
			printf("valid %s %ux%u depth=%d color_type=%d\n", argv[i],
			       (unsigned int)inf.width,
			       (unsigned int)inf.height, inf.depth, inf.color);
		}
	}
	return failed;
}
