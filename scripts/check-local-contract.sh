#!/usr/bin/env bash
# The local stack's contract with the tools that drive it from outside, checked from outside:
# `npm start` on PORT and LOCAL_DATA_DIR, GET /healthz, the admin CLI's JSON, GET /me with a new key,
# a clean stop on SIGTERM and state that survives a restart. Run from the project root
# (`npm run local-contract`); the last line is "contract: N passed, M failed", the exit status 0
# only when nothing failed.
set -uo pipefail
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   - $*"; }
fail() { failed=$((failed + 1)); echo "FAIL - $*"; }
summary() {
  echo "contract: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

work="$(mktemp -d)"
export LOCAL_DATA_DIR="$work/data"
mkdir -p "$LOCAL_DATA_DIR"
PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{const {port}=s.address();s.close(()=>console.log(port))})')"
export PORT
base="http://127.0.0.1:$PORT"
group=""

# Starts the stack in a process group of its own, and waits for /healthz to answer 200.
start_stack() {
  (exec setsid npm start) >>"$work/stack.log" 2>&1 </dev/null &
  group=$!
  for _ in $(seq 1 120); do
    node -e 'fetch(process.argv[1],{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))' "$base/healthz" && return 0
    kill -0 -- "-$group" 2>/dev/null || return 1
    sleep 1
  done
  return 1
}

# SIGTERM to the whole group; false when it is still there 15 s later (then it is killed).
stop_stack() {
  [ -n "$group" ] || return 0
  kill -TERM -- "-$group" 2>/dev/null
  for _ in $(seq 1 60); do
    kill -0 -- "-$group" 2>/dev/null || { group=""; return 0; }
    sleep 0.25
  done
  kill -KILL -- "-$group" 2>/dev/null
  group=""
  return 1
}
trap 'stop_stack; rm -rf "$work"' EXIT

admin() { npm run --silent admin -- "$@" --json 2>"$work/admin.err"; }
# The named field of the last JSON object line on stdin.
field() {
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const line=s.trim().split("\n").filter(l=>l.trim().startsWith("{")).pop();const v=JSON.parse(line)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)}catch{process.exit(1)}})' "$1"
}
# The status of GET /me with the key.
me_status() {
  node -e 'fetch(process.argv[1]+"/api/v1/developer/me",{headers:{authorization:"Bearer "+process.argv[2]}}).then(r=>console.log(r.status),()=>console.log("no answer"))' "$base" "$1"
}

if start_stack; then
  pass "npm start: GET /healthz answers 200 on PORT=$PORT"
else
  fail "npm start: no 200 from GET /healthz within 120 s"
  tail -n 30 "$work/stack.log"
  summary
fi

organization_json="$(admin org create --plan team --credits 1000)"
if organization="$(printf '%s' "$organization_json" | field organization_id)"; then
  pass "admin org create --json gives organization_id ($organization)"
else
  fail "admin org create: $organization_json $(cat "$work/admin.err")"
  summary
fi
key_json="$(admin key create --org "$organization" --env test --scopes all)"
if key="$(printf '%s' "$key_json" | field key)"; then pass "admin key create --json gives the key"; else
  fail "admin key create: $key_json $(cat "$work/admin.err")"
  summary
fi
case "$key" in svc_test_*_*) pass "the key reads svc_test_<prefix>_<secret>" ;; *) fail "the key reads $key" ;; esac
if prefix="$(printf '%s' "$key_json" | field key_prefix)"; then pass "admin key create --json gives key_prefix"; else fail "admin key create gives no key_prefix"; fi

status="$(me_status "$key")"
[ "$status" = 200 ] && pass "GET /me with the new key: 200" || fail "GET /me with the new key: $status"
status="$(me_status svc_test_nope_nope)"
[ "$status" = 401 ] && pass "GET /me with a key that does not exist: 401" || fail "GET /me with a key that does not exist: $status"

admin credits set --org "$organization" --balance 5 >/dev/null && pass "admin credits set" || fail "admin credits set: $(cat "$work/admin.err")"
admin org update --org "$organization" --plan custom --limit concurrent_video_jobs=5 >/dev/null &&
  pass "admin org update --limit" || fail "admin org update: $(cat "$work/admin.err")"
if admin no-such-command >/dev/null; then fail "admin: an unknown command exits 0"; else pass "admin: an unknown command exits non-zero"; fi

if stop_stack; then pass "SIGTERM stops the stack and its emulators"; else fail "the stack was still running 15 s after SIGTERM"; fi
if start_stack; then
  status="$(me_status "$key")"
  [ "$status" = 200 ] && pass "after a restart the key still works (state kept)" || fail "after a restart GET /me: $status"
else
  fail "restart: no 200 from GET /healthz"
fi
admin key revoke --key-prefix "$prefix" >/dev/null && pass "admin key revoke" || fail "admin key revoke: $(cat "$work/admin.err")"
status="$(me_status "$key")"
[ "$status" = 401 ] && pass "GET /me with the revoked key: 401" || fail "GET /me with the revoked key: $status"
summary
