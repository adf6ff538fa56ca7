# SPDX-License-Identifier: Apache-2.0
# plot_sharing_coloc.gp - how much sharing stretches a pod against the
# number of pods it shares its GPU with: per sharing mechanism, the mean of
# running time / duration (1: full speed) of the departed pods, grouped by
# the pods on their busiest GPU (themselves included, averaged over the time
# they ran, rounded), policies and seeds pooled.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, sharings (quoted words), slugs (their file-name slugs),
# lts (their line types), out and setting. Data:
# datadir/<trace>.<slug>.sharing_coloc.dat, tab-separated columns pods on
# the busiest GPU, mean running time / duration, pods.
set datafile separator "\t"
n = words(sharings)
file(i) = sprintf('%s/%s.%s.sharing_coloc.dat', datadir, trace, word(slugs, i))
lt(i) = int(word(lts, i))
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set title sprintf("Sharing mechanisms, trace %s (%s): slowdown against co-located pods\ndeparted pods of 10 s or more, all policies and seeds", trace, setting) noenhanced
	set grid
	set key top left noenhanced
	set xlabel 'Pods on the GPU (itself included, time average, rounded)'
	set ylabel 'Mean running time / duration'
	set xrange [0.5:*]
	set xtics 1
	set yrange [0:*]
	set offsets 0, 0.5, 0, 0
	plot for [i=1:n] file(i) using 1:2 with linespoints lt lt(i) title word(sharings, i), \
	     1 with lines lc rgb 'black' dt 3 lw 1 title 'full speed'
	unset output
}
