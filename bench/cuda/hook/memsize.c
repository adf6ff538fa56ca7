/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memsize.c - the bytes libgpushare charges for a CUDA array (memsize.h).
 */
#include "memsize.h"

/* Bytes of one element; 0 when the channels count multiplies a base size. */
static uint64_t element_bytes(unsigned int format, unsigned int channels)
{
	switch (format) {
	case 0x01: /* UNSIGNED_INT8 */
	case 0x08: /* SIGNED_INT8 */
		return channels;
	case 0x02: /* UNSIGNED_INT16 */
	case 0x09: /* SIGNED_INT16 */
	case 0x10: /* HALF */
		return 2ull * channels;
	case 0x03: /* UNSIGNED_INT32 */
	case 0x0a: /* SIGNED_INT32 */
	case 0x20: /* FLOAT */
		return 4ull * channels;
	case 0xc0: /* UNORM_INT8X1 */
	case 0xc6: /* SNORM_INT8X1 */
		return 1;
	case 0xc1: /* UNORM_INT8X2 */
	case 0xc7: /* SNORM_INT8X2 */
	case 0xc3: /* UNORM_INT16X1 */
	case 0xc9: /* SNORM_INT16X1 */
	case 0xb0: /* NV12: 1.5 bytes per pixel */
	case 0xa2: /* NV16 */
	case 0xa5: /* YUY2 */
		return 2;
	case 0xc2: /* UNORM_INT8X4 */
	case 0xc8: /* SNORM_INT8X4 */
	case 0xc4: /* UNORM_INT16X2 */
	case 0xca: /* SNORM_INT16X2 */
	case 0x9f: /* P010: 3 bytes per pixel */
	case 0xa1: /* P016 */
	case 0xa3: /* P210 */
	case 0xa4: /* P216 */
	case 0xa6: /* Y210 */
	case 0xa7: /* Y216 */
	case 0xa8: /* AYUV */
	case 0xa9: /* Y410 */
	case 0xb2: /* Y444_PLANAR8: 3 */
	case 0xb4: /* YUV444_8bit_SemiPlanar: 3 */
	case 0x50: /* UNORM_INT_101010_2 */
		return 4;
	case 0xc5: /* UNORM_INT16X4 */
	case 0xcb: /* SNORM_INT16X4 */
	case 0xb1: /* Y416 */
	case 0xb3: /* Y444_PLANAR10: 6 */
	case 0xb5: /* YUV444_16bit_SemiPlanar: 6 */
		return 8;
	default:
		/* BC1-BC7: at most 1 byte per texel. */
		if (format >= 0x91 && format <= 0x9e)
			return 1;
		return 16;
	}
}

/* a * b, or UINT64_MAX when it overflows (UINT64_MAX stays UINT64_MAX). */
static uint64_t mul(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return v > UINT64_MAX - (to - 1) ? UINT64_MAX : (v + to - 1) / to * to;
}

uint64_t gs_array_bytes(unsigned int format, unsigned int channels, uint64_t width,
			uint64_t height, uint64_t depth, unsigned int flags, unsigned int levels)
{
	uint64_t elem = element_bytes(format, channels), total = 0;
	unsigned int l;

	if (!width || !channels || !levels || !elem)
		return 0;
	for (l = 0; l < levels && l < 64; l++) {
		uint64_t w = width >> l, h = height >> l, d = depth, row, rows;

		/* Layers and cube faces keep their count down the mip chain. */
		if (!(flags & (GS_ARRAY_LAYERED | GS_ARRAY_CUBEMAP)))
			d >>= l;
		row = round_up(mul(w ? w : 1, elem), GS_ARRAY_ROW_ALIGN);
		rows = height ? round_up(h ? h : 1, GS_ARRAY_ROWS_ALIGN) : 1;
		total = add(total, mul(mul(row, rows), depth ? (d ? d : 1) : 1));
	}
	return total == UINT64_MAX ? UINT64_MAX : round_up(total, GS_ARRAY_PAGE);
}
