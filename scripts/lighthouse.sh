#!/usr/bin/env bash
# Lighthouse (phone emulation, its default) on the home page, a German guide and the Japanese
# GPU page, served as in production: gunicorn, DEBUG off, collected static files, a throwaway
# seeded SQLite database. Used by `make lighthouse`; not part of CI (it downloads Lighthouse).
#
# Goals (issue 36): accessibility, best practices and SEO 100, performance at least 95. Exit 1
# when a page misses one. Needs node/npm and Debian's chromium; LIGHTHOUSE names an installed
# lighthouse binary to use instead of a copy under /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-8799}
pages=("en/" "de/guides/best-gpu-for-llama-70b-fine-tuning/" "ja/gpus/")

tmp=$(mktemp -d /tmp/gpuguide-lighthouse.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

lighthouse=${LIGHTHOUSE:-/tmp/gpuguide-lighthouse-cli/node_modules/.bin/lighthouse}
if [ ! -x "$lighthouse" ]; then
  echo "lighthouse: installing lighthouse@12 into /tmp/gpuguide-lighthouse-cli"
  mkdir -p /tmp/gpuguide-lighthouse-cli
  npm install --prefix /tmp/gpuguide-lighthouse-cli --no-audit --no-fund --loglevel=error lighthouse@12
fi

export ENV_FILE="" DEBUG=false SECRET_KEY="lighthouse-local-only-$(date +%s)-0123456789abcdef" \
  ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false SECURE_HSTS_SECONDS=0 \
  SITE_URL="http://127.0.0.1:$port" DATABASE_URL="sqlite:///$tmp/db.sqlite3" \
  REQUIRE_2FA_FOR_ADMINISTRATORS=false
.venv/bin/python manage.py migrate --no-input -v0
.venv/bin/python manage.py seed_content >/dev/null
.venv/bin/python manage.py collectstatic --no-input -v0
.venv/bin/gunicorn gpuguide.wsgi --workers 2 --bind "127.0.0.1:$port" --log-level warning &
server=$!
for _ in $(seq 50); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break
  sleep 0.2
done

failed=0
for path in "${pages[@]}"; do
  report="$tmp/$(echo "$path" | tr '/' '_').json"
  CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium} "$lighthouse" "http://127.0.0.1:$port/$path" \
    --quiet --chrome-flags="--headless=new --no-sandbox" --output=json --output-path="$report" \
    --only-categories=performance,accessibility,best-practices,seo >/dev/null
  .venv/bin/python - "$path" "$report" <<'EOF' || failed=1
import json, sys
path, report = sys.argv[1], sys.argv[2]
scores = {name: round(c["score"] * 100) for name, c in json.load(open(report))["categories"].items()}
goals = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
missed = [name for name, goal in goals.items() if scores[name] < goal]
print(f"/{path}: " + ", ".join(f"{name} {score}" for name, score in scores.items())
      + (f"  MISSED: {', '.join(missed)}" if missed else ""))
sys.exit(1 if missed else 0)
EOF
done
exit $failed
