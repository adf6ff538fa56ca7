/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docgen.h - the man pages and shell completion of gpusim, generated from
 * the commands' option tables (cmd.h's registry, opt.h's rows), so they
 * list exactly the options --help lists. The build runs
 * `gpusim --man DIR` and `gpusim --completion bash|zsh` (main.c), and
 * installs what they write.
 */
#ifndef GS_DOCGEN_H
#define GS_DOCGEN_H

#include <stdio.h>

/*
 * Writes gpusim.1 and one gpusim-NAME.1 per command into dir, making dir
 * and its missing parents first (like plot --out). Returns 0; 2 after a
 * message on stderr, writing nothing, when dir cannot be made (a file is
 * in the way, no permission) or is too long for the pages' paths (4095
 * bytes, "DIR/gpusim-NAME.1", checked for every page before any is
 * written, never cut); 1 after a message naming the file that could not
 * be written.
 */
int gs_man_write_all(const char *dir);

/*
 * Writes the completion script of shell, "bash" or "zsh", to f. Returns
 * 0, or 2 after a message on stderr for another shell.
 */
int gs_complete_write(const char *shell, FILE *f);

#endif
