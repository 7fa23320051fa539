# shellcheck shell=bash
# A throwaway PostgreSQL cluster for a benchmark script, on 127.0.0.1 and a free port. Sourced:
#
#   . Benchmarks/lib/postgres.sh
#   cleanup() { …the script's own…; pg_stop; }      # pg_stop in the script's EXIT trap (`trap pg_stop EXIT` alone
#   trap cleanup EXIT                                # when it has nothing else to clean up)
#   pg_start --settings bulk --database orders      # then: "$PG_URL", pg_psql -d orders -c "…", pg_url other
#
# pg_start [--settings durable|bulk|fast] [--database NAME]... [--in FOLDER] [-c name=value]...
#   Makes a cluster and starts it. PostgreSQL refuses to run as root, so when run as root the cluster belongs to the
#   `postgres` user (runuser); otherwise to whoever runs the script.
#   --settings  durable: PostgreSQL's own settings, fsync and synchronous commit on (the default).
#               bulk: durable, with room for large loads: shared_buffers=1GB, max_wal_size=8GB,
#               checkpoint_timeout=30min.
#               fast: fsync, synchronous commit and full-page writes off, for runs that do not measure the database.
#   --database  creates NAME (again for more); PG_URL names the first one (else `postgres`).
#   --in        puts the cluster in FOLDER/pg, so it stays when the caller keeps FOLDER (KEEP=1) and goes when the
#               caller deletes it; by default it has a temporary folder of its own, deleted by pg_stop. FOLDER is made
#               searchable by everyone so that the postgres user reaches its cluster.
#   -c          a further setting; later ones win (-c shared_buffers=4GB after --settings bulk).
#   Settings are written to the cluster's postgresql.conf, so a kept cluster starts again as it ran (pg_resume).
#   Exports PG_BIN (the server's bin folder), PG_DATA, PG_PORT and PG_URL
#   (postgres://postgres@127.0.0.1:PORT/NAME?sslmode=disable).
# pg_resume FOLDER      starts the cluster kept in FOLDER/pg (by --in FOLDER and KEEP=1) on a free port; pg_stop
#                       stops it and leaves it where it is.
# pg_url [NAME]         prints the URL of database NAME (postgres).
# pg_psql [ARG]...      runs psql as the postgres role against the cluster: -X -q, then ARG…
# pg_stop [fast|immediate]
#                       stops the cluster (fast by default, immediate when that fails) and deletes its folder when it
#                       made it; does nothing when no cluster runs. Meant for the caller's EXIT trap.

PG_BIN=${PG_BIN:-}
PG_DATA=""
PG_PORT=""
PG_URL=""
_pg_root=""
_pg_owns_root=""

# Runs a server command as the cluster's owner.
_pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# A port nothing listens on now (the kernel's pick when python3 is there); pg_start tries again if it is taken first.
_pg_free_port() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    return
  fi
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 10000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  return 1
}

_pg_find_bin() {
  PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
  [ -n "$PG_BIN" ] && [ -x "$PG_BIN/pg_ctl" ] || { echo "needs PostgreSQL's server (apt-get install postgresql)" >&2; return 1; }
}

# Starts the cluster in PG_DATA on a free port, trying another when one is taken between the pick and the start.
_pg_launch() {
  for _ in 1 2 3 4 5; do
    PG_PORT=$(_pg_free_port) || break
    if _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$_pg_root/server.log" -w -t 120 -o "-p $PG_PORT" start >/dev/null; then
      export PG_BIN PG_DATA PG_PORT
      return 0
    fi
  done
  echo "PostgreSQL did not start; its log ($_pg_root/server.log) ends:" >&2
  tail -5 "$_pg_root/server.log" >&2 2>/dev/null
  return 1
}

pg_start() {
  local settings=durable folder="" databases=() options=() option
  while [ $# -gt 0 ]; do
    case "$1" in
      --settings) settings=$2; shift 2 ;;
      --database) databases+=("$2"); shift 2 ;;
      --in) folder=$2; shift 2 ;;
      -c) options+=("$2"); shift 2 ;;
      *) echo "pg_start: unknown argument $1" >&2; return 2 ;;
    esac
  done
  case "$settings" in
    durable) ;;
    bulk) options=(shared_buffers=1GB max_wal_size=8GB checkpoint_timeout=30min "${options[@]}") ;;
    fast) options=(fsync=off synchronous_commit=off full_page_writes=off "${options[@]}") ;;
    *) echo "pg_start: --settings durable, bulk or fast" >&2; return 2 ;;
  esac
  _pg_find_bin || return 1
  if [ -n "$folder" ]; then
    chmod a+x "$folder"
    _pg_root="$folder/pg"
    _pg_owns_root=""
    mkdir -p "$_pg_root"
  else
    _pg_root=$(mktemp -d "${TMPDIR:-/tmp}/wo-pg.XXXXXX")
    _pg_owns_root=1
  fi
  [ "$(id -u)" = 0 ] && chown postgres "$_pg_root"
  PG_DATA="$_pg_root/data"
  if ! _pg_as_owner "$PG_BIN/initdb" -D "$PG_DATA" -U postgres -A trust -E UTF8 >"$_pg_root/initdb.log" 2>&1; then
    echo "initdb failed:" >&2
    cat "$_pg_root/initdb.log" >&2
    return 1
  fi
  {
    echo "# Benchmarks/lib/postgres.sh, --settings $settings"
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$_pg_root'"
    echo "max_connections = 100"
    for option in "${options[@]}"; do echo "${option%%=*} = '${option#*=}'"; done
  } >>"$PG_DATA/postgresql.conf"
  _pg_launch || return 1
  for option in "${databases[@]}"; do pg_psql -c "CREATE DATABASE \"$option\"" || return 1; done
  PG_URL=$(pg_url "${databases[0]:-postgres}")
  export PG_URL
}

pg_resume() {
  local folder=${1:?usage: pg_resume FOLDER}
  _pg_find_bin || return 1
  _pg_root="$folder/pg"
  _pg_owns_root=""
  PG_DATA="$_pg_root/data"
  [ -f "$PG_DATA/PG_VERSION" ] || { echo "no cluster in $_pg_root" >&2; return 1; }
  _pg_launch || return 1
  PG_URL=$(pg_url)
  export PG_URL
}

pg_url() {
  echo "postgres://postgres@127.0.0.1:$PG_PORT/${1:-postgres}?sslmode=disable"
}

pg_psql() {
  "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"
}

pg_stop() {
  if [ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ]; then
    _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DATA" -m "${1:-fast}" -w -t 60 stop >/dev/null 2>&1 ||
      _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
  fi
  [ -n "$_pg_owns_root" ] && rm -rf "$_pg_root"
  PG_DATA="" _pg_root="" _pg_owns_root=""
  return 0
}
