#!/bin/sh
# The compose `backup` service: pg_dump (custom format) every BACKUP_INTERVAL_SECONDS into
# /backups/zhuoji-YYYYmmddTHHMMSSZ.dump, written to a temporary name and renamed when complete,
# then deletes dumps older than BACKUP_KEEP_DAYS. Connection: PGHOST, PGUSER, PGPASSWORD,
# PGDATABASE. `backup.sh once` takes one dump and exits.
set -eu
interval=${BACKUP_INTERVAL_SECONDS:-86400}
keep=${BACKUP_KEEP_DAYS:-14}
dir=${BACKUP_DIR:-/backups}

dump() {
    name="$dir/zhuoji-$(date -u +%Y%m%dT%H%M%SZ).dump"
    if pg_dump --format=custom --no-owner --file="$name.part"; then
        mv "$name.part" "$name"
        echo "backup: wrote $name"
    else
        rm -f "$name.part"
        echo "backup: pg_dump failed" >&2
        return 1
    fi
    find "$dir" -name 'zhuoji-*.dump' -type f -mtime "+$keep" -print -delete
}

if [ "${1:-}" = "once" ]; then
    dump
    exit
fi
while true; do
    dump || true
    sleep "$interval"
done
