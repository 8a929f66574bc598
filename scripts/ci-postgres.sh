#!/usr/bin/env bash
# Brings up a PostgreSQL server on loopback for the PostgreSQL store and
# cluster tests, and prints the URL they read on its last line:
#
#   SWITCHBOARD_TEST_DATABASE_URL=postgres://switchboard_test:...@127.0.0.1:5432/switchboard_test
#
# Idempotent: installs Debian's postgresql package only when it is missing,
# reuses an existing cluster (any version pg_lsclusters shows), starts it only
# when it is down, and creates the role and database only once. PostgreSQL
# refuses to run as root, so the server is started with pg_ctlcluster, which
# switches to the postgres user. Progress goes to stderr; stdout carries only
# the URL line, so `eval "export $(scripts/ci-postgres.sh)"` works.
set -euo pipefail

DB_NAME="${SWITCHBOARD_TEST_DB_NAME:-switchboard_test}"
DB_USER="${SWITCHBOARD_TEST_DB_USER:-switchboard_test}"
DB_PASSWORD="${SWITCHBOARD_TEST_DB_PASSWORD:-switchboard_test}"

log() { printf 'ci-postgres: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

have_server() {
  command -v pg_lsclusters >/dev/null 2>&1 && compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null
}

install_server() {
  log 'installing postgresql with apt-get'
  export DEBIAN_FRONTEND=noninteractive
  # The package lists are refreshed only when the install cannot find the package.
  if ! as_root apt-get install -y -q postgresql >&2; then
    as_root apt-get update -q >&2
    as_root apt-get install -y -q postgresql >&2
  fi
}

# First cluster pg_lsclusters knows: "version name port status".
first_cluster() {
  pg_lsclusters --no-header 2>/dev/null | awk 'NR == 1 { print $1, $2, $3, $4 }'
}

have_server || install_server
have_server || { log 'postgresql is still missing after apt-get install'; exit 1; }

cluster="$(first_cluster)"
if [ -z "$cluster" ]; then
  version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
  log "creating cluster $version/main"
  as_root pg_createcluster "$version" main >&2
  cluster="$(first_cluster)"
fi
read -r PG_VERSION PG_NAME PG_PORT PG_STATUS <<<"$cluster"
CONF_DIR="/etc/postgresql/$PG_VERSION/$PG_NAME"

# Loopback only, in a drop-in file (Debian's postgresql.conf includes conf.d);
# ssl goes off when the snakeoil key is absent, as in slim containers, or the
# server would not start.
if [ -d "$CONF_DIR/conf.d" ]; then
  dropin="listen_addresses = '127.0.0.1'"
  if ! as_root test -r /etc/ssl/private/ssl-cert-snakeoil.key; then dropin+=$'\nssl = off'; fi
  if [ "$(as_root cat "$CONF_DIR/conf.d/switchboard-ci.conf" 2>/dev/null)" != "$dropin" ]; then
    printf '%s\n' "$dropin" | as_root tee "$CONF_DIR/conf.d/switchboard-ci.conf" >/dev/null
    # A running server reads listen_addresses only at start.
    case "$PG_STATUS" in online*) as_root pg_ctlcluster "$PG_VERSION" "$PG_NAME" restart >&2 ;; esac
  fi
fi

case "$PG_STATUS" in
  online*) log "cluster $PG_VERSION/$PG_NAME already running on port $PG_PORT" ;;
  *)
    log "starting cluster $PG_VERSION/$PG_NAME on port $PG_PORT"
    as_root pg_ctlcluster "$PG_VERSION" "$PG_NAME" start >&2
    ;;
esac

for _ in $(seq 1 60); do
  if pg_isready -q -h 127.0.0.1 -p "$PG_PORT"; then break; fi
  sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p "$PG_PORT" || { log "server on 127.0.0.1:$PG_PORT is not ready"; exit 1; }

psql_admin() {
  as_postgres psql -X -q -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres "$@"
}

# Role: created once, password set every time so a changed password takes effect.
psql_admin -v user="$DB_USER" -v password="$DB_PASSWORD" >&2 <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'user')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'user') \gexec
SELECT format('ALTER ROLE %I LOGIN PASSWORD %L', :'user', :'password') \gexec
SQL

# Database owned by the role, so tests may create and drop their own schemas.
psql_admin -v user="$DB_USER" -v db="$DB_NAME" >&2 <<'SQL'
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'user')
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SQL

log "database $DB_NAME ready on 127.0.0.1:$PG_PORT"
encoded_password="$(node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$DB_PASSWORD" 2>/dev/null || printf '%s' "$DB_PASSWORD")"
echo "SWITCHBOARD_TEST_DATABASE_URL=postgres://$DB_USER:$encoded_password@127.0.0.1:$PG_PORT/$DB_NAME"
