#!/usr/bin/env bash
# Makes PostgreSQL (127.0.0.1:5432, database `test`) and Redis (127.0.0.1:6379)
# available for the end-to-end tests: starts them if they are installed but down,
# installs them from Debian if they are missing. Fails loudly if they still do not
# answer, so no test suite ever skips itself.
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! command -v pg_isready >/dev/null || ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  echo "services: installing PostgreSQL"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
  # A cluster we just installed: let local TCP clients in without a password, as
  # the tests expect (never done to an existing cluster).
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    echo "host all all 127.0.0.1/32 trust" | $sudo tee -a "$hba" >/dev/null
    echo "host all all ::1/128 trust" | $sudo tee -a "$hba" >/dev/null
  done
fi
if ! pg_up; then
  echo "services: starting PostgreSQL"
  $sudo pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
  for _ in $(seq 1 50); do pg_up && break; sleep 0.2; done
fi
pg_up || { echo "services: PostgreSQL does not answer on 127.0.0.1:5432" >&2; exit 1; }
if ! psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null 2>&1; then
  $sudo -u postgres createdb test 2>/dev/null || su postgres -c "createdb test" 2>/dev/null || true
fi
psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null \
  || { echo "services: cannot reach database test as postgres@127.0.0.1" >&2; exit 1; }

if ! command -v redis-server >/dev/null; then
  echo "services: installing Redis"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
fi
if ! redis_up; then
  echo "services: starting Redis"
  mkdir -p /tmp/servo-fleet-redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /tmp/servo-fleet-redis --logfile /tmp/servo-fleet-redis/redis.log
  for _ in $(seq 1 50); do redis_up && break; sleep 0.2; done
fi
redis_up || { echo "services: Redis does not answer on 127.0.0.1:6379" >&2; exit 1; }
echo "services: PostgreSQL and Redis are up"
