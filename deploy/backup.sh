#!/bin/sh
# The compose `backup` service: pg_dump (custom format) every BACKUP_INTERVAL_SECONDS into
# /backups/zhuoji-YYYYmmddTHHMMSSZ.dump, written to a temporary name and renamed when complete,
# then deletes dumps older than BACKUP_KEEP_DAYS. Connection: PGHOST, PGUSER, PGPASSWORD,
# PGDATABASE. `backup.sh once` takes one dump and exits (status 1 if it failed).
#
# The dumps hold seat-token and player-code hashes: they are created 0600 (umask 077), and
# older dumps are made 0600 too. A failed pg_dump is tried again,
# BACKUP_TRIES tries in all (3), BACKUP_RETRY_SECONDS apart (60). When every try failed, an
# ERROR line goes to stderr and $dir/BACKUP-FAILED says when and why (while it is there the
# service's healthcheck is unhealthy); the next dump that succeeds removes it.
set -eu
umask 077
interval=${BACKUP_INTERVAL_SECONDS:-86400}
keep=${BACKUP_KEEP_DAYS:-14}
dir=${BACKUP_DIR:-/backups}
tries=${BACKUP_TRIES:-3}
retry=${BACKUP_RETRY_SECONDS:-60}
failed="$dir/BACKUP-FAILED"

for n in "$interval" "$keep" "$tries" "$retry"; do
    case $n in
        "" | *[!0-9]*)
            echo "backup: ERROR: '$n' is not a number of seconds, days or tries" >&2
            exit 2
            ;;
    esac
done
[ "$tries" -ge 1 ] || tries=1

# one pg_dump; its error output in $err
try_dump() {
    name="$dir/zhuoji-$(date -u +%Y%m%dT%H%M%SZ).dump"
    if err=$(pg_dump --format=custom --no-owner --file="$name.part" 2>&1); then
        mv "$name.part" "$name"
        echo "backup: wrote $name"
        return 0
    fi
    rm -f "$name.part"
    return 1
}

dump() {
    find "$dir" -name 'zhuoji-*.dump' -type f -exec chmod 600 {} +
    n=1
    until try_dump; do
        echo "backup: pg_dump failed (try $n of $tries): $err" >&2
        if [ "$n" -ge "$tries" ]; then
            when=$(date -u +%Y-%m-%dT%H:%M:%SZ)
            printf '%s: no backup written, pg_dump failed %s times:\n%s\n' \
                "$when" "$tries" "$err" >"$failed"
            echo "backup: ERROR: NO BACKUP WRITTEN: pg_dump failed $tries times; see $failed" >&2
            return 1
        fi
        n=$((n + 1))
        sleep "$retry"
    done
    rm -f "$failed"
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
