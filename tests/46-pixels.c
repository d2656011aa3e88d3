// SPDX-License-Identifier: GPL-2.0
/*
 * 46-pixels: what a format says about its pixels is true.
 *
 * For every pixel format the driver lists (VIDIOC_ENUM_FMT), capture the
 * "100% White", "100% Black", "100% Red", "100% Green" and "100% Blue"
 * test patterns (V4L2_CID_TEST_PATTERN) at 320x240 and compare every pixel
 * of the lower half of the frame (away from the text lines drawn at the
 * top) with the values computed here from the colorimetry VIDIOC_G_FMT
 * reports: R'G'B' as it is, or Y'CbCr by the BT.601 or BT.709 formulas
 * (Kr, Kb), full or limited range, read in the byte order of the format
 * (RGB3 against BGR3, XR24, RGBP, YUYV against UYVY, GREY). Default
 * values (V4L2_*_DEFAULT) are resolved as the V4L2 spec says.
 *
 * Tolerance: +-2 on an 8-bit component (the generator's fixed-point
 * rounding: its Rec. 709 luma weights add up to 255/256, so luma white is
 * 254), +-1 on a component of fewer bits (RGB565).
 *
 * The verdict is made from the format, the control and the bytes of the
 * frames only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "common.h"
#include "lib.h"

#define CAP		V4L2_BUF_TYPE_VIDEO_CAPTURE
#define WIDTH		320
#define HEIGHT		240
#define NBUF		3
#define MAX_FRAME	(WIDTH * HEIGHT * 4)
#define TOL_8BIT	2	/* an 8-bit component */
#define TOL_FEW_BITS	1	/* a component of fewer bits, in its units */

/* ---- what the bytes of a format mean ------------------------------------ */

enum kind { RGB, YCBCR, LUMA };

/* How to read one pixel's components from a line of a packed format */
struct layout {
	uint32_t fourcc;
	enum kind kind;
	unsigned int bits[3];	/* R, G, B or Y, Cb, Cr */
	void (*read)(const uint8_t *line, unsigned int x, unsigned int c[3]);
};

static void read_rgb3(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	c[0] = l[3 * x];
	c[1] = l[3 * x + 1];
	c[2] = l[3 * x + 2];
}

static void read_bgr3(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	c[0] = l[3 * x + 2];
	c[1] = l[3 * x + 1];
	c[2] = l[3 * x];
}

/* XR24, V4L2_PIX_FMT_XBGR32: B, G, R, X in memory */
static void read_xr24(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	c[0] = l[4 * x + 2];
	c[1] = l[4 * x + 1];
	c[2] = l[4 * x];
}

/* RGBP, V4L2_PIX_FMT_RGB565: a little-endian 16-bit word rrrrrggggggbbbbb */
static void read_rgbp(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	unsigned int v = l[2 * x] | l[2 * x + 1] << 8;

	c[0] = v >> 11;
	c[1] = (v >> 5) & 0x3f;
	c[2] = v & 0x1f;
}

/* YUYV: Y0 Cb Y1 Cr for each pair of pixels */
static void read_yuyv(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	const uint8_t *p = l + 4 * (x / 2);

	c[0] = p[2 * (x & 1)];
	c[1] = p[1];
	c[2] = p[3];
}

/* UYVY: Cb Y0 Cr Y1 for each pair of pixels */
static void read_uyvy(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	const uint8_t *p = l + 4 * (x / 2);

	c[0] = p[1 + 2 * (x & 1)];
	c[1] = p[0];
	c[2] = p[2];
}

static void read_grey(const uint8_t *l, unsigned int x, unsigned int c[3])
{
	c[0] = l[x];
	c[1] = c[2] = 0;
}

static const struct layout layouts[] = {
	{ V4L2_PIX_FMT_RGB24,  RGB,   { 8, 8, 8 }, read_rgb3 },
	{ V4L2_PIX_FMT_BGR24,  RGB,   { 8, 8, 8 }, read_bgr3 },
	{ V4L2_PIX_FMT_XBGR32, RGB,   { 8, 8, 8 }, read_xr24 },
	{ V4L2_PIX_FMT_RGB565, RGB,   { 5, 6, 5 }, read_rgbp },
	{ V4L2_PIX_FMT_YUYV,   YCBCR, { 8, 8, 8 }, read_yuyv },
	{ V4L2_PIX_FMT_UYVY,   YCBCR, { 8, 8, 8 }, read_uyvy },
	{ V4L2_PIX_FMT_GREY,   LUMA,  { 8, 0, 0 }, read_grey },
};

static const struct layout *find_layout(uint32_t fourcc)
{
	unsigned int i;

	for (i = 0; i < VT_ARRAY_SIZE(layouts); i++)
		if (layouts[i].fourcc == fourcc)
			return &layouts[i];
	return NULL;
}

/* ---- what the values must be -------------------------------------------- */

static const char *enc_name(unsigned int e)
{
	switch (e) {
	case V4L2_YCBCR_ENC_601: return "601";
	case V4L2_YCBCR_ENC_709: return "709";
	default: return "other";
	}
}

/*
 * The components of the R'G'B' colour rgb (0 or 1 each: 100% colours, the
 * same in every transfer function) in a format of this layout with the
 * colorimetry in pix, scaled to each component's bits. 0 on success,
 * -EINVAL with a reason for an encoding this test does not know.
 */
static int expect(const struct layout *lay, const struct v4l2_pix_format *pix,
		  const double rgb[3], double want[3], char *why, size_t len)
{
	unsigned int enc = pix->ycbcr_enc, quant = pix->quantization;
	double kr, kb, y, pb, pr;
	bool full;
	int i;

	if (enc == V4L2_YCBCR_ENC_DEFAULT)
		enc = V4L2_MAP_YCBCR_ENC_DEFAULT(pix->colorspace);
	if (quant == V4L2_QUANTIZATION_DEFAULT)
		quant = V4L2_MAP_QUANTIZATION_DEFAULT(lay->kind == RGB,
						      pix->colorspace, enc);
	full = quant == V4L2_QUANTIZATION_FULL_RANGE;

	if (lay->kind == RGB) {
		for (i = 0; i < 3; i++) {
			double v = full ? 255 * rgb[i] : 16 + 219 * rgb[i];

			want[i] = v * ((1u << lay->bits[i]) - 1) / 255;
		}
		return 0;
	}
	switch (enc) {
	case V4L2_YCBCR_ENC_601:
		kr = 0.299;
		kb = 0.114;
		break;
	case V4L2_YCBCR_ENC_709:
		kr = 0.2126;
		kb = 0.0722;
		break;
	default:
		snprintf(why, len, "Y'CbCr encoding %u: no formula in this test",
			 enc);
		return -EINVAL;
	}
	y = kr * rgb[0] + (1 - kr - kb) * rgb[1] + kb * rgb[2];
	pb = (rgb[2] - y) / (2 * (1 - kb));
	pr = (rgb[0] - y) / (2 * (1 - kr));
	want[0] = full ? 255 * y : 16 + 219 * y;
	want[1] = 128 + (full ? 255 : 224) * pb;
	want[2] = 128 + (full ? 255 : 224) * pr;
	for (i = 0; i < 3; i++) {
		if (want[i] < 0)
			want[i] = 0;
		if (want[i] > 255)
			want[i] = 255;
	}
	return 0;
}

/* ---- capture ------------------------------------------------------------- */

/* One frame by mmap streaming, copied into out (sizeimage bytes) */
static int capture(int fd, uint8_t *out, size_t size)
{
	struct vt_stream s;
	struct v4l2_buffer b;
	int r;

	r = vt_stream_start(&s, fd, NBUF, NBUF);
	if (!r)
		r = vt_dqbuf(fd, &b, 5000 * vt_scale());
	if (!r && (b.index >= s.n || b.bytesused < size))
		r = -EIO;
	if (!r)
		memcpy(out, s.mem[b.index], size);
	vt_stream_stop(&s);
	return r;
}

/* ---- the test ------------------------------------------------------------- */

/* The index of the menu item called name of a menu control, or -1 */
static int menu_index(int fd, uint32_t id, const char *name)
{
	struct v4l2_querymenu m;

	memset(&m, 0, sizeof(m));
	m.id = id;
	for (m.index = 0; m.index < 64; m.index++)
		if (!ioctl(fd, VIDIOC_QUERYMENU, &m) &&
		    !strcmp((char *)m.name, name))
			return (int)m.index;
	return -1;
}

/*
 * Compare the lower half of the frame with want[]: 0 if every pixel
 * matches, else the number of pixels off, the first one described in why.
 */
static unsigned int compare(const struct layout *lay,
			    const struct v4l2_pix_format *pix,
			    const uint8_t *frame, const double want[3],
			    char *why, size_t len)
{
	static const char * const names[3][3] = {
		{ "R", "G", "B" }, { "Y", "Cb", "Cr" }, { "Y", "", "" },
	};
	unsigned int ncomp = lay->kind == LUMA ? 1 : 3, bad = 0, x, y, i;

	for (y = pix->height / 2; y < pix->height; y++) {
		const uint8_t *line = frame + (size_t)y * pix->bytesperline;

		for (x = 0; x < pix->width; x++) {
			unsigned int c[3];

			lay->read(line, x, c);
			for (i = 0; i < ncomp; i++) {
				double tol = lay->bits[i] == 8 ? TOL_8BIT :
							       TOL_FEW_BITS;
				double d = c[i] - want[i];

				if (d >= -tol && d <= tol)
					continue;
				if (!bad++)
					snprintf(why, len,
						 "%s %u at (%u,%u), expected %.1f +-%.0f",
						 names[lay->kind][i], c[i], x, y,
						 want[i], tol);
				break;
			}
		}
	}
	return bad;
}

FIXTURE(pixels) {
	int fd;
	int pattern;
	uint8_t *frame;
};

FIXTURE_VARIANT(pixels) {
	const char *pattern;	/* the menu item of V4L2_CID_TEST_PATTERN */
	double rgb[3];		/* R', G', B' of the colour */
};

FIXTURE_VARIANT_ADD(pixels, white) { "100% White", { 1, 1, 1 } };
FIXTURE_VARIANT_ADD(pixels, black) { "100% Black", { 0, 0, 0 } };
FIXTURE_VARIANT_ADD(pixels, red)   { "100% Red",   { 1, 0, 0 } };
FIXTURE_VARIANT_ADD(pixels, green) { "100% Green", { 0, 1, 0 } };
FIXTURE_VARIANT_ADD(pixels, blue)  { "100% Blue",  { 0, 0, 1 } };

FIXTURE_SETUP(pixels)
{
	struct vt_dev devs[VT_MAX_DEVS];

	self->fd = -1;
	self->frame = malloc(MAX_FRAME);
	ASSERT_NE(NULL, self->frame);
	ASSERT_LT(0, vt_devices(devs, VT_MAX_DEVS)) TH_LOG("no vivpoll device");
	self->fd = vp_open(devs[0].path, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", devs[0].path,
				      strerror(-self->fd));
	ASSERT_EQ(0, vp_set_fps(self->fd, 30, NULL, NULL));
	self->pattern = menu_index(self->fd, V4L2_CID_TEST_PATTERN,
				   variant->pattern);
	ASSERT_LE(0, self->pattern) TH_LOG("no test pattern \"%s\"",
					   variant->pattern);
	ASSERT_EQ(0, vp_ctrl_set(self->fd, V4L2_CID_TEST_PATTERN,
				 self->pattern));
}

FIXTURE_TEARDOWN(pixels)
{
	if (self->fd >= 0) {
		vp_ctrl_set(self->fd, V4L2_CID_TEST_PATTERN, 0);
		vp_set_format(self->fd, 640, 480, V4L2_PIX_FMT_YUYV, NULL,
			      NULL);
		close(self->fd);
	}
	free(self->frame);
}

TEST_F(pixels, every_format)
{
	struct v4l2_fmtdesc desc = { .type = CAP };
	unsigned int checked = 0;

	for (desc.index = 0; !ioctl(self->fd, VIDIOC_ENUM_FMT, &desc);
	     desc.index++) {
		const struct layout *lay = find_layout(desc.pixelformat);
		struct v4l2_format f;
		struct v4l2_pix_format *pix = &f.fmt.pix;
		char name[8], why[160] = "", off[160] = "";
		double want[3];
		unsigned int bad;
		int r;

		vp_fourcc_str(desc.pixelformat, name);
		EXPECT_NE(NULL, lay) TH_LOG("%s: no model of its bytes in this test",
					    name);
		if (!lay)
			continue;
		r = vp_set_format(self->fd, WIDTH, HEIGHT, desc.pixelformat, NULL,
				  NULL);
		ASSERT_EQ(0, r) TH_LOG("%s %ux%u: %s", name, WIDTH, HEIGHT,
				       vt_errname(-r));
		memset(&f, 0, sizeof(f));
		f.type = CAP;
		ASSERT_EQ(0, ioctl(self->fd, VIDIOC_G_FMT, &f));
		ASSERT_GE(MAX_FRAME, pix->sizeimage);
		r = expect(lay, pix, variant->rgb, want, why, sizeof(why));
		EXPECT_EQ(0, r) TH_LOG("%s: %s", name, why);
		if (r)
			continue;
		r = capture(self->fd, self->frame, pix->sizeimage);
		ASSERT_EQ(0, r) TH_LOG("%s: capture: %s", name, vt_errname(-r));
		bad = compare(lay, pix, self->frame, want, off, sizeof(off));
		if (lay->kind == LUMA)
			snprintf(why, sizeof(why), "Y %.1f", want[0]);
		else
			snprintf(why, sizeof(why), "%s %.1f %.1f %.1f",
				 lay->kind == RGB ? "RGB" : "YCbCr",
				 want[0], want[1], want[2]);
		vt_diag("%s %s: colorspace %u, ycbcr_enc %u (%s), quantization %u: "
			"want %s, %u pixels off",
			name, variant->pattern, pix->colorspace, pix->ycbcr_enc,
			enc_name(pix->ycbcr_enc), pix->quantization, why, bad);
		fflush(stdout);	/* the harness ends a test with _exit() */
		EXPECT_EQ(0, bad) TH_LOG("%s %s: %u of %u pixels off; first: %s",
					 name, variant->pattern, bad,
					 WIDTH * HEIGHT / 2, off);
		checked++;
	}
	EXPECT_LT(0, checked) TH_LOG("no format listed");
}

TEST_HARNESS_MAIN
