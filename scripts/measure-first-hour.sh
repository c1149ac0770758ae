#!/usr/bin/env bash
# Issue 28: quickstart to the first keyword answer, and the first search after `serve`.
# Usage: bash scripts/measure-first-hour.sh DATA_DIR PORT   (DATA_DIR and DATA_DIR.stages are removed and rebuilt)
set -u
D=${1:?data dir}; PORT=${2:-8103}; BIN=$(dirname "$0")/../.venv/bin/papersift
URL="http://127.0.0.1:$PORT"
wait_for() {  # URL -> seconds since $start when it first answers 200
  while [ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" != 200 ]; do sleep 0.2; done
  echo "$(date +%s.%N) - $start" | bc
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$D"
start=$(date +%s.%N)
"$BIN" quickstart --data-dir "$D" --port "$PORT" > "$D.quickstart.log" 2>&1 &
qs=$!
echo "quickstart -> first keyword answer: $(wait_for "$URL/api/search?q=learning&mode=keyword") s"
echo "quickstart -> /healthz ready: $(wait_for "$URL/healthz") s"
echo "first search page (server-side): $(curl -s -D - -o /dev/null "$URL/?q=graph+neural+networks&lang=en" | grep -i server-timing)"
sleep "${WAIT_CHAIN:-0}"
kill -INT $qs; wait $qs 2>/dev/null
echo "background chain so far:"; grep "stage " "$D/embed.log" || true
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
"$BIN" serve --data-dir "$D" --port "$PORT" > "$D.serve.log" 2>&1 &
sv=$!
echo "serve -> first keyword answer: $(wait_for "$URL/api/search?q=learning&mode=keyword") s"
echo "serve -> /healthz ready: $(wait_for "$URL/healthz") s"
for q in "graph+neural+networks" "diffusion+models" "%E5%BC%B1%E7%9B%91%E7%9D%A3%E5%AD%A6%E4%B9%A0"; do
  echo "first searches after ready, hybrid page q=$q: $(curl -s -o /dev/null -w '%{time_total}' "$URL/?q=$q") s"
done
kill -INT $sv; wait $sv 2>/dev/null
grep -h "ready in\|signin" "$D.quickstart.log" "$D.serve.log" | sed 's/token=[^ ]*/token=.../'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
# The stages before quickstart serves, each alone in a fresh process, with its CPU time (user +
# sys: what it would take on an idle core) beside its wall time (what it took under this load).
S="$D.stages"; rm -rf "$S"; PY=$(dirname "$0")/../.venv/bin/python
CORPUS=$(dirname "$0")/../../shared/data/ml_papers
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "stage ingest: wall %e s, cpu %U+%S s" "$BIN" ingest "$CORPUS/papers.jsonl.gz" \
  "$CORPUS/papers_title_only.jsonl.gz" --data-dir "$S" 2>&1 | grep "^stage"
/usr/bin/time -f "stage keyword index: wall %e s, cpu %U+%S s" "$PY" -c \
  "import sys; from papersift.index import lexical; lexical.update(sys.argv[1])" "$S" 2>&1 | grep "^stage"
/usr/bin/time -f "stage serve start to the first keyword answer (in-process client): wall %e s, cpu %U+%S s" "$PY" -c "
import sys
from fastapi.testclient import TestClient
from papersift.server import create_app
answer = TestClient(create_app(sys.argv[1], allowed_hosts=('testserver',))).get('/api/search?q=learning&mode=keyword')
assert answer.status_code == 200 and answer.json()['total'] > 0" "$S" 2>&1 | grep "^stage"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$S"
