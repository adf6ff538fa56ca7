# SPDX-License-Identifier: Apache-2.0
# plot-bench.gp - the figures of `make bench` without a database: draws
# bench_overhead, bench_slowdown and bench_shares from the CSV files that
# `gpusim bench-import --csv-dir DIR` writes (DIR/overhead.csv,
# slowdown.csv and shares.csv), through the same scripts `gpusim plot`
# uses (plot_bench_*.gp, next to this one), into DIR/.. as PNG, SVG and PDF.
# A figure whose CSV file has no rows is skipped with a note.
#
#   gnuplot -e "dir='results/bench/NVIDIA-H100-80GB-HBM3/csv'" scripts/plot-bench.gp
#
# `gpusim plot --db DB` draws the same figures from the database itself.
if (!exists("dir")) { print "plot-bench.gp: set dir, e.g. gnuplot -e \"dir='results/bench/X/csv'\""; exit status 2 }

# The directory of this script, where the figure scripts are.
i = strlen(ARG0)
while (i > 0 && ARG0[i:i] ne '/') { i = i - 1 }
scriptdir = i > 0 ? ARG0[1:i] : './'

# The word lists the figure scripts take, from the CSV columns (a value
# with a blank is already in double quotes there): kernels and devices by
# name, modes in the order of the schema.
f_overhead = dir.'/overhead.csv'
f_slowdown = dir.'/slowdown.csv'
f_shares = dir.'/shares.csv'
csvcol(f, n) = sprintf("tail -n +2 '%s' 2>/dev/null | cut -d, -f%d;", f, n)
kernels = system('{ '.csvcol(f_overhead, 1).csvcol(f_slowdown, 1)." } | sort -u | tr '\\n' ' '")
devices = system('{ '.csvcol(f_overhead, 5).csvcol(f_slowdown, 6).csvcol(f_shares, 7). \
		 " } | sort -u | tr '\\n' ' '")
modes = system('m=$({ '.csvcol(f_overhead, 2).csvcol(f_slowdown, 3).csvcol(f_shares, 2).' });'. \
	       ' for x in exclusive timeslice mps hook;'. \
	       ' do printf "%s\n" "$m" | grep -qx "$x" && printf "%s " "$x"; done')
rows(f) = int(system(sprintf("tail -n +2 '%s' 2>/dev/null | grep -c .", f)))

do for [fig in 'overhead slowdown shares'] {
	datafile = dir.'/'.fig.'.csv'
	out = dir.'/../bench_'.fig
	if (rows(datafile) > 0) {
		load scriptdir.'plot_bench_'.fig.'.gp'
		print out.'.png'
		print out.'.svg'
		print out.'.pdf'
	} else {
		print 'plot-bench.gp: '.datafile.' has no rows; no bench_'.fig.' figure'
	}
}
