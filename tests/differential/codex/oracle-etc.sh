#!/bin/bash
# oracle-etc.sh DIR CASES.json > results.jsonl: the oracle (oracle.sh) with DIR seen as
# /etc/codex (Codex's managed requirements.toml), through an overlay over /etc inside a
# private mount namespace: the host's /etc is never written. Root: unshare -m -n.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$1" && pwd); shift
if [ "${IN_MNT_NS:-}" != 1 ]; then exec unshare -m -n env IN_MNT_NS=1 bash "$0" "$SRC" "$@"; fi
mount --make-rprivate /
W=$(mktemp -d /tmp/permission-lsp-etc-overlay.XXXXXX); mkdir -p "$W/upper" "$W/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$W/upper,workdir=$W/work" /etc \
  || { echo "oracle-etc.sh: the overlay over /etc failed" >&2; exit 1; }
mkdir -p /etc/codex && cp -r "$SRC"/. /etc/codex/
export CODEX_ORACLE_IN_NS=1
exec bash "$HERE/oracle.sh" "$@"
