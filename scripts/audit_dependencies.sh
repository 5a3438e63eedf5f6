#!/usr/bin/env bash
# Audit requirements.txt for known vulnerabilities with pip-audit, installed into a throwaway
# virtual environment (never into the project's). Used by `make audit` and .ci/run.
#
# Exit 1 when a pinned dependency has a known vulnerability. When the vulnerability service
# cannot be reached (or pip-audit cannot be installed) it says plainly that the dependencies
# were NOT audited and exits 0: a machine without that service must still be able to run CI.
# PIP_AUDIT_SERVICE picks the service: pypi (default) or osv; PIP_AUDIT names an installed
# pip-audit to use instead of a fresh one.
set -uo pipefail
cd "$(dirname "$0")/.."
requirements=${1:-requirements.txt}
service=${PIP_AUDIT_SERVICE:-pypi}
python=${PYTHON:-python3}

tmp=$(mktemp -d /tmp/gpuguide-audit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

pip_audit=${PIP_AUDIT:-$tmp/venv/bin/pip-audit}
if [ -z "${PIP_AUDIT:-}" ] && ! { "$python" -m venv "$tmp/venv" \
    && "$tmp/venv/bin/pip" install --quiet pip-audit; } >"$tmp/install.log" 2>&1; then
  echo "pip-audit: could not be installed ($(tail -n 1 "$tmp/install.log")), dependencies NOT audited"
  exit 0
fi

# --disable-pip: read the pinned, hashed requirements as they are; nothing is installed.
"$pip_audit" --requirement "$requirements" --require-hashes --disable-pip \
  --vulnerability-service "$service" --progress-spinner off --format json \
  >"$tmp/report.json" 2>"$tmp/stderr"
status=$?

"$python" - "$tmp/report.json" "$tmp/stderr" "$status" "$requirements" <<'PY'
import json
import sys

report_path, stderr_path, status, requirements = sys.argv[1:]
stderr = open(stderr_path, encoding="utf-8", errors="replace").read()
try:
    report = json.load(open(report_path, encoding="utf-8"))
except ValueError:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    cause = next((line for line in reversed(lines) if "Error" in line), lines[-1] if lines else "")
    print("pip-audit: vulnerability database unreachable, dependencies NOT audited")
    print(f"pip-audit: exit status {status}: {cause[:300]}")
    sys.exit(0)

deps = report.get("dependencies", [])
skipped = [d for d in deps if d.get("skip_reason")]
vulnerable = [d for d in deps if d.get("vulns")]
for dep in vulnerable:
    for vuln in dep["vulns"]:
        fixed = ", ".join(vuln.get("fix_versions") or []) or "no fixed version yet"
        print(f"pip-audit: {dep['name']} {dep['version']}: {vuln['id']} (fixed in {fixed})")
if vulnerable:
    print(f"pip-audit: {len(vulnerable)} of {len(deps)} dependencies have known vulnerabilities")
    sys.exit(1)
if deps and len(skipped) == len(deps):
    print("pip-audit: vulnerability database unreachable, dependencies NOT audited")
    print(f"pip-audit: e.g. {skipped[0]['name']}: {skipped[0]['skip_reason']}")
    sys.exit(0)
if skipped:
    names = ", ".join(d["name"] for d in skipped)
    print(f"pip-audit: {len(skipped)} of {len(deps)} dependencies NOT audited: {names}")
print(f"pip-audit: {len(deps) - len(skipped)} dependencies in {requirements} audited, "
      "no known vulnerabilities")
PY
