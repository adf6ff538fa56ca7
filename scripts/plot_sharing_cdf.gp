# SPDX-License-Identifier: Apache-2.0
# plot_sharing_cdf.gp - the distribution of the completion times
# (departure - arrival: the wait plus the running time, which sharing
# stretches) under each sharing mechanism: one panel per policy, one line
# per mechanism (its departed pods in brackets), all pods of all seeds, x
# on a log axis from 1 s. Pods that failed or never left are not in it.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, out, setting, panels (the policies, one panel each), and
# per panel i: wi (its mechanisms, quoted words), si (their file-name
# slugs) and li (their line types). Data:
# datadir/<trace>.<policy>.<slug>.sharing_cdf.dat, tab-separated columns
# seconds, fraction.
set datafile separator "\t"
np = words(panels)
cols = np < 3 ? np : 3
rows = (np + cols - 1) / cols
# A row of panels and their keys needs about two thirds of a standard
# figure's height: one row keeps the standard size, more rows grow it (ten
# policies, four rows, were unreadable at 640 pixels).
height = rows > 1 ? rows * 0.66 : 1
file(p, slug) = sprintf('%s/%s.%s.%s.sharing_cdf.dat', datadir, trace, word(panels, p), slug)
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt sprintf('%g', height)
	set output out.'.'.fmt
	set multiplot layout rows, cols title sprintf("Sharing mechanisms, trace %s (%s)\ncompletion time (departure - arrival) of the departed pods (how many), all seeds", trace, setting) noenhanced
	set grid
	set logscale x
	set format x '10^{%T}'
	set yrange [0:1]
	set key below maxrows 3 samplen 3 width -2 noenhanced
	set xlabel 'Completion time (s)'
	set ylabel 'Share of departed pods'
	do for [p=1:np] {
		ws = value(sprintf('w%d', p))
		ss = value(sprintf('s%d', p))
		ls = value(sprintf('l%d', p))
		set title word(panels, p) noenhanced
		if (p > 1) { unset ylabel }
		plot for [i=1:words(ws)] file(p, word(ss, i)) using 1:2 with steps lt int(word(ls, i)) title word(ws, i)
	}
	unset multiplot
	unset output
}
