# SPDX-License-Identifier: Apache-2.0
# plot_validation.gp - the sharing validation set (docs/sharing-model.md):
# gpusim's figure against the published one for every replayed row, log-log,
# with the line y = x and the band around it (gpusim within +-band of the
# published figure, the verdict of a check row). One series per mechanism;
# rows that fixed a workload parameter, an anchor or the table are hollow.
#
# Driven by `gpusim interference validate --plot DIR`, which sets: scriptdir
# (with a trailing slash), datafile, band (0.15 for 15 %), summary and out.
# Data: tab-separated columns published, gpusim, mechanism index (1
# timeslice, 2 mps, 3 vgpu, 4 mig, 5 exclusive), check (1) or not (0), id.
set datafile separator "\t"
mechs = 'time-slicing MPS vGPU MIG exclusive'
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set title sprintf("Sharing model against published measurements\n%s", summary) noenhanced
	set logscale xy
	set grid
	set key top left noenhanced
	set xlabel 'Published figure (throughput against alone)'
	set ylabel 'gpusim'
	set xrange [0.08:3]
	set yrange [0.08:3]
	set size square
	plot x * (1 + band) with lines lc rgb '#bbbbbb' dt 2 title sprintf('+-%g %%', band * 100), \
	     x * (1 - band) with lines lc rgb '#bbbbbb' dt 2 notitle, \
	     x with lines lc rgb 'black' lw 1 title 'y = x', \
	     for [m=1:5] datafile using ($3 == m && $4 == 1 ? $1 : NaN):2 \
		with points lt (m + 1) pt 7 ps 1.2 title word(mechs, m), \
	     for [m=1:5] datafile using ($3 == m && $4 == 0 ? $1 : NaN):2 \
		with points lt (m + 1) pt 6 ps 1.2 notitle, \
	     NaN with points lc rgb 'black' pt 6 ps 1.2 title 'hollow: fitted, anchor, table'
	unset output
}
