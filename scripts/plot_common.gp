# SPDX-License-Identifier: Apache-2.0
# plot_common.gp - terminal set-up shared by the gpusim plot scripts.
#
# Called as: call 'plot_common.gp' 'png'|'svg'|'pdf' ['HEIGHT']
# HEIGHT: the figure's height in standard heights (960 x 640 pixels,
# 6 x 4 inches), default 1; a figure of many panels asks for more, so
# that each keeps its size. PNG goes through the cairo terminal when this
# gnuplot has it (antialiased lines, transparent bands), else through the
# libgd png terminal, which every gnuplot-nox build has. PDF (for papers)
# needs pdfcairo, which Debian's gnuplot-nox has.
fmt = ARG1
common_h = ARGC >= 2 ? real(ARG2) : 1.0
if (fmt eq 'png') {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 960,int(640 * common_h) enhanced font 'Sans,11'
	} else {
		set terminal png size 960,int(640 * common_h)
	}
} else {
	if (fmt eq 'pdf') {
		set terminal pdfcairo size 6in,(4 * common_h)in enhanced font 'Sans,9'
	} else {
		set terminal svg size 960,int(640 * common_h) enhanced font 'Sans,12' background rgb 'white'
	}
}
# One colour, dash pattern and marker per policy, the same in every figure
# (policies come in the paper's order: random, dotprod, gpuclustering,
# gpupacking, bestfit, fgd), so that lines on top of each other and
# figures printed in grey still tell the policies apart. Line plots use
# `lt i` (colour, dash and marker); bars and bands use `lc i`.
set linetype 1 lc rgb '#7f7f7f' lw 2 dt 1 pt 1
set linetype 2 lc rgb '#1f77b4' lw 2 dt 2 pt 2
set linetype 3 lc rgb '#9467bd' lw 2 dt 4 pt 4
set linetype 4 lc rgb '#ff7f0e' lw 2 dt 5 pt 6
set linetype 5 lc rgb '#2ca02c' lw 2 dt 3 pt 8
set linetype 6 lc rgb '#d62728' lw 2 dt 1 pt 7
set linetype 7 lc rgb '#8c564b' lw 2 dt 2 pt 10
set linetype 8 lc rgb '#e377c2' lw 2 dt 4 pt 12
set linetype 9 lc rgb '#17becf' lw 2 dt 5 pt 14
set linetype 10 lc rgb '#bcbd22' lw 2 dt 3 pt 5
