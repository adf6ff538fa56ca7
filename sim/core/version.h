/* SPDX-License-Identifier: Apache-2.0 */
/*
 * version.h - which gpusim this is. The definition is generated at build
 * time by scripts/version.cmake.
 */
#ifndef GS_VERSION_H
#define GS_VERSION_H

/*
 * Returns the static string "X.Y.Z+COMMIT": the project version and the
 * output of `git describe --always --dirty` at build time ("unknown"
 * outside a git checkout). `gpusim --version` prints it and every stored
 * run keeps it in runs.gpusim_version.
 */
const char *gs_version(void);

#endif
