# plot-bench.gp - the figures of `make bench`: the interception overhead
# per kernel and mode, the slowdown against the number of co-located
# clients, and requested against achieved compute shares.
#
# Reads the CSV files that `gpusim bench-import --csv-dir DIR` exports from
# the bench tables (results/SCHEMA.md): DIR/overhead.csv, DIR/slowdown.csv
# and DIR/shares.csv. Writes DIR/../overhead, slowdown and shares as PNG
# and SVG. A figure whose CSV has no rows is skipped with a note.
#
#   gnuplot -e "dir='results/bench/NVIDIA-H100-80GB-HBM3/csv'" scripts/plot-bench.gp
if (!exists("dir")) { print "plot-bench.gp: set dir, e.g. gnuplot -e \"dir='results/bench/X/csv'\""; exit status 2 }
set datafile separator ","
set key noenhanced
set grid
rows(f) = int(system(sprintf("tail -n +2 '%s' 2>/dev/null | grep -c .", f)))
out(name) = dir.'/../'.name

# --- overhead: one bar per kernel and mode (alone on a GPU, against exclusive) ---
f = dir.'/overhead.csv'
if (rows(f) > 0) {
	set title 'Overhead against exclusive, each kernel alone on a GPU (targets: mnist <= 1 %, launch <= 5 %)' noenhanced
	set ylabel 'Throughput lost (%)'
	set style fill solid 0.8 border -1
	set boxwidth 0.6
	set xtics rotate by -30 noenhanced
	set yrange [0:*]
	set offsets 0, 0, 1, 0
	do for [fmt in 'png svg'] {
		if (fmt eq 'png') { set terminal pngcairo size 1000,600 } else { set terminal svg size 1000,600 }
		set output out('overhead').'.'.fmt
		plot f using 0:3:xtic(strcol(1).' / '.strcol(2)) skip 1 with boxes lc 1 notitle, \
		     1 with lines dt 2 lc 'black' title '1 %', 5 with lines dt 3 lc 'black' title '5 %'
		unset output
	}
	unset xtics; set xtics; unset style fill; set offsets 0, 0, 0, 0
} else { print 'plot-bench.gp: '.f.' has no rows; no overhead figure' }

# --- slowdown: throughput factor against co-located clients, per kernel and mode ---
f = dir.'/slowdown.csv'
if (rows(f) > 0) {
	kernels = system(sprintf("tail -n +2 '%s' | cut -d, -f1 | sort -u | tr '\\n' ' '", f))
	modes = system(sprintf("tail -n +2 '%s' | cut -d, -f3 | sort -u | tr '\\n' ' '", f))
	set title 'Throughput against alone, by clients sharing one GPU' noenhanced
	set xlabel 'Co-located clients'
	set ylabel 'Throughput / throughput alone'
	set yrange [0:1.1]
	set xrange [1:*]
	set key outside right top
	do for [fmt in 'png svg'] {
		if (fmt eq 'png') { set terminal pngcairo size 1000,600 } else { set terminal svg size 1000,600 }
		set output out('slowdown').'.'.fmt
		plot 1/x with lines dt 2 lc 'black' title 'fair share 1/n', \
		     for [k in kernels] for [m in modes] f skip 1 \
		         using (strcol(1) eq k && strcol(3) eq m ? $2 : NaN):4 with linespoints title k.' '.m
		unset output
	}
	unset xlabel; set xrange [*:*]
} else { print 'plot-bench.gp: '.f.' has no rows; no slowdown figure' }

# --- shares: requested against achieved, with the 5-point target band ---
f = dir.'/shares.csv'
if (rows(f) > 0) {
	modes = system(sprintf("tail -n +2 '%s' | cut -d, -f2 | sort -u | tr '\\n' ' '", f))
	set title 'Requested against achieved compute share (target: within 5 points)' noenhanced
	set xlabel 'Requested share'
	set ylabel 'Achieved share'
	set xrange [0:1]
	set yrange [0:1]
	set size square
	set key inside left top
	set style fill transparent solid 0.15 noborder
	do for [fmt in 'png svg'] {
		if (fmt eq 'png') { set terminal pngcairo size 700,700 } else { set terminal svg size 700,700 }
		set output out('shares').'.'.fmt
		plot '+' using 1:($1 - 0.05):($1 + 0.05) with filledcurves lc 'grey' title '+-5 points', \
		     x with lines dt 2 lc 'black' notitle, \
		     for [i=1:words(modes)] f skip 1 using (strcol(2) eq word(modes, i) ? $4 : NaN):5 \
		         with points pt 4 + 2 * i ps 3.0 - 0.6 * i lw 2 title word(modes, i)
		unset output
	}
} else { print 'plot-bench.gp: '.f.' has no rows; no shares figure' }
