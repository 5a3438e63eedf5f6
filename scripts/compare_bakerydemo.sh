#!/usr/bin/env bash
# Comparison, run by hand (not in CI): Wagtail's bakerydemo under the same wrk load as
# scripts/loadtest.sh, so that our req/s, p50/p99 and memory per worker have a yardstick from
# a well-known Django + Wagtail site. bakerydemo runs with its production settings
# (bakerydemo.settings.production: DEBUG off, WhiteNoise) on SQLite, under gunicorn with 2 and
# then 4 sync workers on the loopback interface, and wrk loads one bread page. Prints rows in
# loadtest.sh's table format, labelled bakery-bread. Bounded: DURATION seconds per run (2 runs),
# plus a few minutes of setup (a venv and bakerydemo's requirements from PyPI).
#
#   git clone https://github.com/wagtail/bakerydemo /tmp/bakerydemo   # fetch it yourself
#   scripts/compare_bakerydemo.sh /tmp/bakerydemo                      # needs wrk and Python 3.12+
#   DURATION=30 BAKERY_PYTHON=/usr/bin/python3.13 scripts/compare_bakerydemo.sh /tmp/bakerydemo
#
# The checkout is only read: the script copies it (without .git, .env, local settings, database,
# media and collected static files) into a work folder under /tmp, which also holds the venv
# (requirements/base.txt, WhiteNoise as pinned in requirements/production.txt, and gunicorn at
# the version of our .venv), the SQLite database and the media; all of it is removed on exit
# (KEEP_WORK=1 keeps it). No Redis, no Elasticsearch: bakerydemo's production settings then
# use a per-process LocMemCache, which its bread page does not use (no page cache).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/wrk_row.sh
. scripts/wrk_row.sh

SRC=${1:-}
[ -n "$SRC" ] && [ -f "$SRC/manage.py" ] && [ -f "$SRC/bakerydemo/settings/production.py" ] ||
  { echo "compare_bakerydemo: usage: $0 PATH_TO_BAKERYDEMO_CHECKOUT (git clone https://github.com/wagtail/bakerydemo)" >&2; exit 1; }
SRC=$(cd "$SRC" && pwd)
BAKERY_PYTHON=${BAKERY_PYTHON:-python3.12}
PORT=${BAKERY_PORT:-8767}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-50}

command -v wrk >/dev/null || { echo "compare_bakerydemo: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
# bakerydemo's requirements need Django 6, hence Python 3.12 or later.
"$BAKERY_PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null ||
  { echo "compare_bakerydemo: no Python 3.12+ at BAKERY_PYTHON=$BAKERY_PYTHON (bakerydemo needs Django 6); set BAKERY_PYTHON=/path/to/python3.12" >&2; exit 1; }
! curl -s -o /dev/null "http://127.0.0.1:$PORT/" ||
  { echo "compare_bakerydemo: port $PORT is taken (set BAKERY_PORT)" >&2; exit 1; }
# The same gunicorn as our load test, so that only the application differs.
GUNICORN_SPEC=gunicorn
if [ -x .venv/bin/python ]; then
  GUNICORN_SPEC="gunicorn==$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('gunicorn'))")"
fi
WHITENOISE_SPEC=$(grep -E '^whitenoise' "$SRC/requirements/production.txt" 2>/dev/null || echo whitenoise)
COMMIT=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo "no git")

SERVER=""
WORK=$(mktemp -d /tmp/bakerydemo-compare.XXXXXX)
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  if [ -n "${KEEP_WORK:-}" ]; then echo "compare_bakerydemo: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
log() { echo "compare_bakerydemo: $*" >&2; }
setup() {  # runs a setup step with its output in $WORK/setup.log, shown if it fails
  "$@" >>"$WORK/setup.log" 2>&1 || { log "failed: $*"; tail -n 30 "$WORK/setup.log" >&2; exit 1; }
}

log "copying $SRC ($COMMIT) to $WORK/app"
mkdir "$WORK/app"
tar -C "$SRC" --exclude=./.git --exclude=./.env --exclude=./bakerydemo/settings/local.py \
  --exclude=./bakerydemodb --exclude=./bakerydemo/media --exclude=./bakerydemo/collect_static \
  --exclude=./node_modules --exclude=./venv --exclude=./.venv --exclude='__pycache__' -cf - . |
  tar -C "$WORK/app" -xf -

log "installing requirements/base.txt, $WHITENOISE_SPEC, $GUNICORN_SPEC into $WORK/venv"
setup "$BAKERY_PYTHON" -m venv "$WORK/venv"
setup "$WORK/venv/bin/pip" install -r "$WORK/app/requirements/base.txt" "$WHITENOISE_SPEC" "$GUNICORN_SPEC"
PY=$WORK/venv/bin/python

# bakerydemo's production settings (DEBUG off), on SQLite and loopback only. Everything that
# would switch on an outside service (Postgres, Redis, Elasticsearch, S3, basic auth, CSP) unset.
unset DATABASE_URL REDIS_URL REDIS_TLS_URL ELASTICSEARCH_ENDPOINT AWS_STORAGE_BUCKET_NAME \
  GS_BUCKET_NAME BASIC_AUTH_ENABLED CSP_DEFAULT_SRC FRONTEND_CACHE_CLOUDFLARE_TOKEN \
  FRONTEND_CACHE_CLOUDFLARE_BEARER_TOKEN PRIMARY_HOST
export DJANGO_SETTINGS_MODULE=bakerydemo.settings.production DATABASE_NAME=bakerydemodb \
  DJANGO_SECRET_KEY="compare-$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')" \
  DJANGO_ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false DJANGO_LOG_LEVEL=WARNING \
  PYTHONDONTWRITEBYTECODE=1
cd "$WORK/app"
log "migrate, load_initial_data, collectstatic"
setup "$PY" manage.py migrate --no-input -v 0
setup "$PY" manage.py load_initial_data
setup "$PY" manage.py collectstatic --no-input -v 0
# The first live bread page, by tree order.
PAGE=$("$PY" manage.py shell -v 0 -c \
  "from bakerydemo.breads.models import BreadPage; print(BreadPage.objects.live().order_by('path').first().url)" 2>>"$WORK/setup.log" | tail -n 1)
case "$PAGE" in /*/) ;; *) log "no bread page found after load_initial_data (got '$PAGE')"; exit 1 ;; esac

# gunicorn as deploy/gunicorn.conf.py runs it for loadtest.sh (sync workers, 1 thread, 30 s
# timeout, keep-alive 5 s, heartbeat in /dev/shm), without our warm-up hook.
cat > "$WORK/gunicorn.conf.py" <<CONF
import os
bind = ["127.0.0.1:$PORT"]
workers = int(os.environ["GUNICORN_WORKERS"])
threads = 1
timeout = 30
graceful_timeout = 20
keepalive = 5
limit_request_line = 8190
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
control_socket = "$WORK/gunicorn.ctl"
errorlog = "-"
loglevel = "warning"
proc_name = "bakerydemo-compare"
CONF

run() {  # workers, label
  local workers=$1 label=$2
  GUNICORN_WORKERS=$workers "$WORK/venv/bin/gunicorn" -c "$WORK/gunicorn.conf.py" \
    bakerydemo.wsgi 2>>"$WORK/gunicorn.log" &
  SERVER=$!
  # Waiting for the page is the warm-up: the first request also makes the image renditions.
  for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT$PAGE" && break; sleep 0.2; done
  curl -fs -o /dev/null "http://127.0.0.1:$PORT$PAGE" ||
    { log "gunicorn did not answer $PAGE"; tail -n 30 "$WORK/gunicorn.log" >&2; exit 1; }
  wrk_row "$workers" "$label" "http://127.0.0.1:$PORT$PAGE" "$SERVER"
  if [ "$workers" = 2 ]; then  # the page as wrk gets it, once
    local plain gz enc
    plain=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "http://127.0.0.1:$PORT$PAGE")
    gz=$(curl -s -o /dev/null -w '%{size_download}' -H "Accept-Encoding: gzip" "http://127.0.0.1:$PORT$PAGE")
    enc=$(curl -s -o /dev/null -D - -H "Accept-Encoding: gzip" "http://127.0.0.1:$PORT$PAGE" |
      awk -F': ' 'tolower($1)=="content-encoding" {gsub("\r", "", $2); print $2}')
    PAGE_INFO="$PAGE answers ${plain%% *}, ${plain#* } bytes; ${gz} bytes with Accept-Encoding: gzip (Content-Encoding: ${enc:-none})"
  fi
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
}

log "setup took ${SECONDS} s"
echo "wrk: ${CONNECTIONS} connections, ${DURATION} s per run, bakerydemo $COMMIT $PAGE on 127.0.0.1"
wrk_header
PAGE_INFO=""
for workers in 2 4; do
  run "$workers" bakery-bread
done
echo "page: $PAGE_INFO"
