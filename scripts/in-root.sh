#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# in-root.sh ROOT DIR COMMAND [ARGS...]
#
# Run COMMAND inside the root filesystem ROOT (scripts/suite-root.sh) with
# DIR, the project, bind-mounted at its own path, so that every absolute path
# of the build means the same inside and out.  The mounts live in a mount
# namespace of this command only: nothing is left mounted when it ends, even
# if it fails.  An empty ROOT runs COMMAND here, unchanged.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 ROOT DIR COMMAND [ARGS...]" >&2; exit 2; }
ROOT=$1 DIR=$(realpath "$2")
shift 2
[ -n "$ROOT" ] || exec "$@"
[ -x "$ROOT/usr/bin/env" ] || { echo "in-root: $ROOT is not a root filesystem" >&2; exit 1; }

# shellcheck disable=SC2016 # expanded by the inner shell
exec unshare --mount --propagation private sh -euc '
	root=$1 dir=$2 cwd=$3
	shift 3
	mkdir -p "$root$dir"
	mount --bind "$dir" "$root$dir"
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	exec chroot "$root" /usr/bin/env -C "$cwd" PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
' in-root "$ROOT" "$DIR" "$PWD" "$@"
