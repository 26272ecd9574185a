# SPDX-License-Identifier: GPL-2.0
#
# awk -v want=in|out -f stock-window.awk KLOG: KLOG's lines inside, or
# outside, the closed stock windows of a case, from "rr-stock: begin" to
# "rr-stock: end" (the markers of stock_begin and stock_end,
# tests/lib/common.sh).  A case that compares with Debian's own modules
# runs them there, and what their stock bugs log is its finding: noted
# beside the verdict (tests/run.sh), not a failure.  An unclosed window
# excuses nothing.  Used by the host (tests/run.sh) and the guest
# (tests/vm/guest-run.sh).
index($0, "rr-stock: begin") { on = 1; buf = ""; next }
on && index($0, "rr-stock: end") { on = 0; if (want == "in") printf "%s", buf; next }
on { buf = buf $0 "\n"; next }
want == "out" { print }
END { if (on && want == "out") printf "%s", buf }
