#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# add-cc.py PATCH < ADDRESSES: add a "Cc:" header to the mail PATCH (a git
# format-patch file) for every address on stdin, once each, in order, after
# its other headers (make patches; git send-email honours them).
import sys

path = sys.argv[1]
seen = []
for line in sys.stdin:
    a = line.strip()
    if a and a not in seen:
        seen.append(a)
s = open(path).read()
head, sep, body = s.partition('\n\n')
head += ''.join('\nCc: ' + a for a in seen)
open(path, 'w').write(head + sep + body)
