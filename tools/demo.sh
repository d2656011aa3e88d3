#!/usr/bin/env bash
# make demo: boot the guest and run guest/demo.sh; results land in $HOSTDIR.
set -eu
. "$(dirname "$0")/lib.sh"
exec tools/qemu-run.sh --timeout "${VIVPOLL_TIMEOUT:-900}" -- '/vivpoll/demo.sh'
