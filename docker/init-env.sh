#!/bin/sh
# Writes docker/.env from docker/.env.example with fresh random secrets, once: an existing
# docker/.env is left as it is. Usage (from anywhere): sh docker/init-env.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
target=${1:-"$here/.env"}
if [ -e "$target" ]; then
  echo "$target exists; left unchanged"
  exit 0
fi
# 32 random bytes as 64 hex digits: URL-safe, so POSTGRES_PASSWORD can sit inside DATABASE_URL.
random() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
umask 077
sed -e "s/^POSTGRES_PASSWORD=\$/POSTGRES_PASSWORD=$(random)/" \
    -e "s/^JWT_SECRET=\$/JWT_SECRET=$(random)/" \
    -e "s/^TOKEN_ENCRYPTION_KEY=\$/TOKEN_ENCRYPTION_KEY=$(random)/" \
    "$here/.env.example" > "$target"
echo "wrote $target with generated secrets"
