# SPDX-License-Identifier: Apache-2.0
# Writes the bytes of IN as a NUL-terminated C array called NAME into OUT, so
# a data file of the repository (results/interference.csv) is built into the
# program without a copy of it in the sources. Run as: cmake -DIN=.. -DOUT=..
# -DNAME=.. -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n\t"
       bytes "${bytes}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "/* SPDX-License-Identifier: Apache-2.0 */\n"
  "/* Generated from ${base} by cmake/embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n\n"
  "extern const char ${NAME}[];\n"
  "extern const size_t ${NAME}_len;\n\n"
  "const char ${NAME}[] = {\n\t${bytes}0x00\n};\n"
  "const size_t ${NAME}_len = sizeof(${NAME}) - 1;\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
