/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memsize.h - how many bytes of device memory a CUDA array takes, as
 * libgpushare charges it: never less than the driver uses.
 *
 * The driver does not say how much memory an array takes; its layout is
 * tiled and padded. The rule: each mip level's rows are padded to 512
 * bytes (the texture pitch alignment) and its height to a multiple of 8
 * rows (a tile), depth, layers and cube faces count in full, and the sum
 * of the levels is rounded up to 2 MiB, the page size the driver maps
 * device memory in. An element is the format's bytes times its channels;
 * packed and planar video formats count their bytes per pixel rounded up
 * to a power of two, block-compressed ones 1 byte per texel, a format
 * this library does not know 16 bytes per element (the largest, float4).
 *
 * Pure arithmetic on the values of cuda.h's CUarray_format and
 * CUDA_ARRAY3D_* flags (the same numbers; hook_mem.c checks them against
 * cuda.h at compile time), so the unit tests need no CUDA header.
 */
#ifndef GS_SHARE_MEMSIZE_H
#define GS_SHARE_MEMSIZE_H

#include <stdint.h>

#define GS_ARRAY_LAYERED 0x01u   /* CUDA_ARRAY3D_LAYERED */
#define GS_ARRAY_CUBEMAP 0x04u   /* CUDA_ARRAY3D_CUBEMAP */

#define GS_ARRAY_ROW_ALIGN 512u
#define GS_ARRAY_ROWS_ALIGN 8u
#define GS_ARRAY_PAGE ((uint64_t)2 << 20)

/*
 * Bytes charged for an array of width x height x depth elements (height 0:
 * 1-D; depth 0: 1- or 2-D; layered and cube maps count their layers and
 * faces in depth, as cuArray3DCreate takes them) of format with channels
 * channels, with levels mip levels (1 for a plain array). Returns
 * UINT64_MAX when the size does not fit in 64 bits, 0 when width, channels
 * or levels is 0 (the driver refuses those itself).
 */
uint64_t gs_array_bytes(unsigned int format, unsigned int channels, uint64_t width,
			uint64_t height, uint64_t depth, unsigned int flags, unsigned int levels);

#endif
