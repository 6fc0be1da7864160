#!/bin/sh
# `deploy/set-tag.sh TAG [ENV_FILE]`: set ZHUOJI_TAG, the app image's tag, in .env (next to
# docker-compose.yml), so that every later `docker compose` command (up, run, exec, a scale
# or a restore) runs that release. The ZHUOJI_TAG= line is replaced where it is, or added;
# the file keeps its owner and mode. Prints the previous tag (the one to roll back to).
set -eu
tag=${1:-}
file=${2:-.env}
case $tag in
    "" | [.-]* | *[!A-Za-z0-9_.-]*)
        echo "set-tag: '$tag' is not an image tag ([A-Za-z0-9_][A-Za-z0-9_.-]*)" >&2
        echo "usage: deploy/set-tag.sh TAG [ENV_FILE]" >&2
        exit 2
        ;;
esac
if [ ${#tag} -gt 128 ]; then
    echo "set-tag: '$tag' is longer than 128 characters" >&2
    exit 2
fi
if [ ! -f "$file" ]; then
    echo "set-tag: $file not found (cp .env.example .env first)" >&2
    exit 1
fi
old=$(sed -n 's/^ZHUOJI_TAG=//p' "$file" | tail -n 1)
if grep -q '^ZHUOJI_TAG=' "$file"; then
    new=$(sed "s/^ZHUOJI_TAG=.*/ZHUOJI_TAG=$tag/" "$file")
    printf '%s\n' "$new" >"$file"
else
    if [ -s "$file" ] && [ -n "$(tail -c 1 "$file")" ]; then
        echo >>"$file"
    fi
    echo "ZHUOJI_TAG=$tag" >>"$file"
fi
echo "ZHUOJI_TAG=$tag in $file (was ${old:-unset: local}; roll back: deploy/set-tag.sh ${old:-local})"
