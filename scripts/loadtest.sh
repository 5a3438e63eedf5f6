#!/usr/bin/env bash
# Load test: gunicorn (deploy/gunicorn.conf.py) with 2 and 4 workers on PostgreSQL + Redis, the
# guide page through Varnish (deploy/varnish.vcl), from gunicorn's page cache, and uncached,
# measured with wrk on the loopback interface only; through Varnish also for a client that takes
# no gzip (varnish-plain). Bounded: DURATION seconds per run (8 runs),
# plus a minute of setup. Prints req/s, p50/p99 latency, errors and memory per worker, for
# docs/performance.md.
#
#   make loadtest      # needs wrk and varnishd (apt-get install -y wrk varnish varnish-modules)
#   DURATION=30 CONNECTIONS=50 make loadtest
#
# It creates (and drops at the end) the database gpuguide_loadtest and uses Redis database 14,
# which it empties. "Uncached" runs the same server with Django's dummy cache: every request
# renders the page (and reads the versions and reference data from the database).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/wrk_row.sh
. scripts/wrk_row.sh

PY=${PY:-.venv/bin/python}
PG_ADMIN_URL=${PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DB_URL=${LOADTEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gpuguide_loadtest}
REDIS_URL=${LOADTEST_REDIS_URL:-redis://127.0.0.1:6379/14}
PORT=${LOADTEST_PORT:-8765}
VARNISH_PORT=${LOADTEST_VARNISH_PORT:-8766}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-50}
PAGE=/en/guides/best-gpu-for-llama-70b-fine-tuning/

command -v wrk >/dev/null || { echo "loadtest: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
VARNISHD=$(command -v varnishd || echo /usr/sbin/varnishd)
[ -x "$VARNISHD" ] || { echo "loadtest: varnishd is missing (apt-get install -y varnish varnish-modules)" >&2; exit 1; }
psql "$PG_ADMIN_URL" -Atqc 'select 1' >/dev/null ||
  { echo "loadtest: no PostgreSQL at $PG_ADMIN_URL" >&2; exit 1; }
"$PY" -c "import redis, sys; redis.Redis.from_url(sys.argv[1]).ping()" "$REDIS_URL" ||
  { echo "loadtest: no Redis at $REDIS_URL" >&2; exit 1; }

# Production settings (DEBUG off), on loopback only.
export ENV_FILE="" DEBUG=false DATABASE_URL="$DB_URL" CONN_MAX_AGE=60 \
  SECRET_KEY="loadtest-$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')" \
  ALLOWED_HOSTS=127.0.0.1 SITE_URL="http://127.0.0.1:$PORT" SECURE_SSL_REDIRECT=false \
  LOG_LEVEL=WARNING FRONT_CACHE=varnish FRONT_CACHE_PURGE_URLS="http://127.0.0.1:$VARNISH_PORT/" \
  TRUSTED_PROXIES=127.0.0.1/32 GUNICORN_BIND="127.0.0.1:$PORT" GUNICORN_LOG_LEVEL=warning

db_name=${DB_URL##*/}
psql "$PG_ADMIN_URL" -qc "DROP DATABASE IF EXISTS $db_name" -qc "CREATE DATABASE $db_name"
SERVER=""
VARNISH=""
WORK=$(mktemp -d /tmp/gpuguide-loadtest.XXXXXX)
# collectstatic fills staticfiles/; remove it afterwards unless it was there before (WhiteNoise
# scans it whenever a middleware stack is built, which slows the test suite by ~15 s).
[ -d staticfiles ] && KEEP_STATIC=1 || KEEP_STATIC=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  [ -n "$VARNISH" ] && kill "$VARNISH" 2>/dev/null && wait "$VARNISH" 2>/dev/null
  rm -rf "$WORK"
  psql "$PG_ADMIN_URL" -qc "DROP DATABASE IF EXISTS $db_name" || true
  [ -n "$KEEP_STATIC" ] || rm -rf staticfiles
}
trap cleanup EXIT

CACHE_URL="$REDIS_URL" "$PY" manage.py migrate --no-input -v 0
CACHE_URL="$REDIS_URL" "$PY" manage.py seed_content -v 0
CACHE_URL="$REDIS_URL" "$PY" manage.py collectstatic --no-input -v 0
"$PY" -c "import redis, sys; redis.Redis.from_url(sys.argv[1]).flushdb()" "$REDIS_URL"

# Varnish in front of the gunicorn on $PORT, with the repository's VCL.
cat > "$WORK/gpuguide-backends.vcl" <<VCL
backend app1 { .host = "127.0.0.1"; .port = "$PORT"; .probe = app_ready; }
sub vcl_init { new app = directors.round_robin(); app.add_backend(app1); }
acl purgers { "127.0.0.1"; }
VCL

run() {  # workers, label, cache URL, port wrk loads ($PORT: gunicorn, $VARNISH_PORT: Varnish)
  local workers=$1 label=$2 target=$4
  CACHE_URL=$3 GUNICORN_WORKERS=$workers .venv/bin/gunicorn -c deploy/gunicorn.conf.py \
    gpuguide.wsgi &
  SERVER=$!
  for _ in $(seq 50); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
  if [ "$target" = "$VARNISH_PORT" ]; then
    "$VARNISHD" -F -j none -a "127.0.0.1:$VARNISH_PORT" -f "$PWD/deploy/varnish.vcl" \
      -p "vcl_path=$WORK:$PWD/deploy" -n "$WORK/varnish" -s malloc,64m >"$WORK/varnish.log" 2>&1 &
    VARNISH=$!
    for _ in $(seq 50); do curl -fs "http://127.0.0.1:$VARNISH_PORT/healthz" >/dev/null && break; sleep 0.2; done
  fi
  # Warm: the cached runs serve hits (Varnish keeps a gzipped and a plain copy).
  curl -fs -o /dev/null -H "Accept-Encoding: gzip" "http://127.0.0.1:$target$PAGE"
  curl -fs -o /dev/null "http://127.0.0.1:$target$PAGE"
  wrk_row "$workers" "$label" "http://127.0.0.1:$target$PAGE" "$SERVER"
  if [ -n "$VARNISH" ]; then
    ACCEPT_ENCODING=identity wrk_row "$workers" "$label-plain" "http://127.0.0.1:$target$PAGE" \
      "$SERVER"
  fi
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
  if [ -n "$VARNISH" ]; then kill "$VARNISH"; wait "$VARNISH" 2>/dev/null || true; VARNISH=""; fi
}

echo "wrk: ${CONNECTIONS} connections, ${DURATION} s per run, $PAGE on 127.0.0.1"
wrk_header
for workers in 2 4; do
  run "$workers" varnish "$REDIS_URL" "$VARNISH_PORT"
  run "$workers" cached "$REDIS_URL" "$PORT"
  # Uncached: no cache at all.
  run "$workers" uncached "dummycache://" "$PORT"
done
