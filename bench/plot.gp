# SPDX-License-Identifier: GPL-2.0
# bench/plot.gp - the two pictures of a bench run, from the figures that
# bench/plot.sh takes out of its results.json:
#   scale.svg    one patch of N functions: enable and disable until
#                complete, klp and builtin, against N (log-log)
#   percall.svg  the per-call cost of klp_target_a in the redirect
#                configurations: the kernel loop, and the userspace
#                pread()s beside it when the run has them
# Every point and bar is the median over the rounds, its error bar the
# min-max.
#
# Variables (gnuplot -e): scale_dat, percall_dat (the data), scale_svg,
# percall_svg (the pictures), run (the kernel and the day, under the
# titles), user (1: percall_dat has the userspace figures), nconf (its
# lines).
#   scale_dat    N, then median min max (ms) of: klp enable, builtin
#                enable, klp disable, builtin disable
#   percall_dat  configuration, then median min max (ns per call) of the
#                kernel loop and of the userspace pread()s
# ? is a missing figure.

set datafile missing "?"
set terminal svg size 900,620 dynamic noenhanced font "Helvetica,14" background rgb "white"
set grid lc rgb "#d0d0d0"
set border lc rgb "#404040"

# --- scale.svg ------------------------------------------------------------------

set output scale_svg
set title "One patch of N functions: enable and disable until complete\nmedian of the rounds, error bar min-max\nemulated CPU (QEMU TCG), one boot, " . run
set logscale xy
set xlabel "functions in the patch (N)"
set ylabel "time until complete"
set xtics ("1" 1, "10" 10, "100" 100, "1000" 1000)
set mxtics 10
set ytics ("1 ms" 1, "10 ms" 10, "100 ms" 100, "1 s" 1e3, "10 s" 1e4, "100 s" 1e5, "1000 s" 1e6)
set mytics 10
set xrange [0.7:1500]
set key top left box opaque
plot scale_dat using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 lc rgb "#1f77b4" title "klp enable", \
	"" using 1:5:6:7 with yerrorlines lw 2 pt 5 ps 0.8 lc rgb "#d62728" title "builtin enable", \
	"" using 1:8:9:10 with yerrorlines lw 2 dt 2 pt 6 ps 0.8 lc rgb "#1f77b4" title "klp disable", \
	"" using 1:11:12:13 with yerrorlines lw 2 dt 2 pt 4 ps 0.8 lc rgb "#d62728" title "builtin disable"
unset output

# --- percall.svg ----------------------------------------------------------------

# the configurations in the order of the table, each its colour
name(s) = s eq "unpatched" ? "unpatched" : \
	s eq "builtin" ? "builtin\nlivepatch" : \
	s eq "ours" ? "klp" : \
	s eq "ours_bpf0" ? "klp +\nno-op BPF" : \
	s eq "ours_klptop" ? "klp +\nklptop" : \
	s eq "ours_perf" ? "klp +\nperf stat" : s
set linetype 1 lc rgb "#8c8c8c"
set linetype 2 lc rgb "#d62728"
set linetype 3 lc rgb "#1f77b4"
set linetype 4 lc rgb (nconf > 5 ? "#c6dbef" : "#6baed6")
set linetype 5 lc rgb (nconf > 5 ? "#6baed6" : "#2ca02c")
set linetype 6 lc rgb "#2ca02c"
fmt(v) = v >= 100 ? sprintf("%.0f", v) : sprintf("%.1f", v)

unset logscale
unset mxtics
unset mytics
set ytics auto
unset key
set xlabel ""
set xrange [-0.6:nconf - 0.4]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xtics scale 0
set bmargin 5
set style fill solid 0.85 border rgb "#404040"
ptitle = "Per-call cost of klp_target_a: bar the median of the rounds, whisker min-max\nemulated CPU (QEMU TCG), one boot, " . run
# panel COL: the figure whose median is column COL, min COL+1, max COL+2
panel(col) = sprintf("plot percall_dat using 0:%d:(0.7):($0 + 1):xtic(name(strcol(1))) with boxes lc variable, " . \
	"'' using 0:%d:%d:%d with yerrorbars lc rgb 'black' pt 7 ps 0.35, " . \
	"'' using 0:%d:(fmt($%d)) with labels offset 0, 0.8", col, col, col + 1, col + 2, col + 2, col)
if (user) {
	set terminal svg size 1200,620 dynamic noenhanced font "Helvetica,14" background rgb "white"
	set output percall_svg
	set multiplot layout 1, 2 title ptitle
	set title "kernel loop (a call from the kernel)"
	set ylabel "ns per call"
	eval panel(2)
	set title "userspace (one pread() per call)"
	eval panel(5)
	unset multiplot
} else {
	set output percall_svg
	set title ptitle . "\nkernel loop (a call from the kernel)"
	set ylabel "ns per call"
	eval panel(2)
}
unset output
