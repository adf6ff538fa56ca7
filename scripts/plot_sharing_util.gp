# SPDX-License-Identifier: Apache-2.0
# plot_sharing_util.gp - what each sharing mechanism delivers of what it
# allocates: per mechanism (groups) and policy (colours), the useful GPU %
# (bar: the work delivered at full speed, runs.eff_util_pct) against the
# allocated GPU % (dashed outline: run_summary.gpu_alloc_pct), both over
# the arrival window, averaged over the seeds.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies (a word list: the trace's policies with runs),
# lts (each policy's line type, so that it keeps its colour in every
# trace's figure), sharings (a list of quoted words: the trace's
# mechanisms with runs), out (the output path without extension) and
# setting. Data: datadir/<trace>.sharing_util.dat, tab-separated: the
# mechanism, then allocated % and useful % per policy in the order of
# `policies`.
set datafile separator "\t"
set datafile missing 'NaN'
np = words(policies)
nm = words(sharings)
file = sprintf('%s/%s.sharing_util.dat', datadir, trace)
w = 0.8 / np
x(p) = $0 + (p - 1 - (np - 1) / 2.0) * w
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set title sprintf("Sharing mechanisms, trace %s (%s, mean over seeds)\nbars: useful GPU %% (work at full speed); dashed outline: allocated GPU %%", trace, setting) noenhanced
	set grid ytics
	set key outside right top vertical noenhanced
	set style fill solid 0.8 border -1
	set boxwidth w
	set xrange [-0.6:nm - 0.4]
	set yrange [0:*]
	set xtics () noenhanced
	do for [m=1:nm] { set xtics add (word(sharings, m) m - 1) }
	set ylabel 'GPU capacity over the arrival window (%)'
	set xlabel 'Sharing mechanism (--sharing)'
	plot for [p=1:np] file using (x(p)):(column(2 * p + 1)) with boxes lc int(word(lts, p)) fs solid 0.8 noborder title word(policies, p), \
	     for [p=1:np] file using (x(p)):(column(2 * p)) with boxes fs empty border lc rgb 'black' lc rgb 'black' dt (6, 3) lw 2 title (p == 1 ? 'allocated' : '')
	unset output
}
