# A GridCore-style queue worker for a busybox container (run as `sh -c "<this file's text>"`): the same contract
# and options as queue-worker.js (INPUT_REDIS_URL, OUTPUT_REDIS_URL, INPUT_QUEUE, OUTPUT_QUEUE, TASK_NAME, NODE_ID,
# INSTANCE_ID; WORKER_DELAY_MS, WORKER_IDLE_MS, WORKER_EXIT_CODE, WORKER_IGNORE_SIGTERM, and WORKER_RETRIES: tries
# of a command while Redis does not answer, default 20, half a second apart). It speaks RESP to Redis
# through busybox nc, one connection per command ([AUTH] [SELECT] command QUIT). Limits: redis:// only (no TLS);
# items are single lines; a password is percent-decoded but must not contain a backslash; a command whose reply
# was lost is sent again (an RPOP's item may be lost, an LPUSH doubled): the connection must pass half-closes.
set -u
say() { echo "queue-worker.sh[${NODE_ID:--}/${INSTANCE_ID:--}]: $*"; }
die() { echo "queue-worker.sh: $1" >&2; exit "${2:-2}"; }

[ -n "${INPUT_REDIS_URL:-}" ] && [ -n "${INPUT_QUEUE:-}" ] && [ -n "${OUTPUT_QUEUE:-}" ] ||
  die "INPUT_REDIS_URL, INPUT_QUEUE and OUTPUT_QUEUE are required"

# Percent-decoding of URL user and password.
pct() { printf '%b' "$(printf '%s' "$1" | sed 's/%\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g')"; }

# parse PREFIX URL: sets PREFIX_host, _port, _user, _pass, _db from redis://[[user]:password@]host[:port][/db]
parse() {
  case $2 in
    redis://*) rest=${2#redis://} ;;
    rediss://*) die "rediss:// (TLS) is not supported by this worker" ;;
    *) die "not a redis:// URL" ;;
  esac
  auth=''
  case $rest in *@*) auth=${rest%@*} rest=${rest##*@} ;; esac
  db=0
  case $rest in */*) db=${rest#*/} rest=${rest%%/*} ;; esac
  [ -n "$db" ] || db=0
  case $rest in
    \[*\]:*) host=${rest%]:*} port=${rest##*]:} host=${host#[} ;;
    \[*\]) host=${rest#[} host=${host%]} port=6379 ;;
    *:*) host=${rest%:*} port=${rest##*:} ;;
    *) host=$rest port=6379 ;;
  esac
  user='' pass=''
  case $auth in
    '') ;;
    *:*) user=$(pct "${auth%%:*}") pass=$(pct "${auth#*:}") ;;
    *) user=$(pct "$auth") ;;
  esac
  eval "${1}_host=\$host ${1}_port=\$port ${1}_user=\$user ${1}_pass=\$pass ${1}_db=\$db"
}
parse IN "$INPUT_REDIS_URL"
parse OUT "${OUTPUT_REDIS_URL:-$INPUT_REDIS_URL}"

# One RESP command (an array of bulk strings; lengths in bytes).
resp() {
  printf '*%d\r\n' $#
  for arg in "$@"; do printf '$%d\r\n%s\r\n' "$(printf '%s' "$arg" | wc -c)" "$arg"; done
}

# call PREFIX COMMAND ARGS...: prints "VAL <value>", "NIL" or "ERR <why>" for the command's reply.
call() {
  eval "h=\$${1}_host pt=\$${1}_port u=\$${1}_user pw=\$${1}_pass d=\$${1}_db"
  shift
  skip=0
  [ -n "$pw" ] && skip=$((skip + 1))
  [ "$d" != 0 ] && skip=$((skip + 1))
  {
    if [ -n "$pw" ] && [ -n "$u" ]; then resp AUTH "$u" "$pw"; elif [ -n "$pw" ]; then resp AUTH "$pw"; fi
    [ "$d" != 0 ] && resp SELECT "$d"
    resp "$@"
    resp QUIT
  } | nc -w 5 "$h" "$pt" 2>/dev/null | tr -d '\r' | {
    i=0
    while IFS= read -r line; do
      if [ "$i" -lt "$skip" ]; then
        [ "$line" = "+OK" ] || { echo "ERR $line"; exit 0; }
        i=$((i + 1))
        continue
      fi
      case $line in
        -*) echo "ERR $line" ;;
        '$-1' | '*-1') echo NIL ;;
        \$*) IFS= read -r data; echo "VAL $data" ;;
        :* | +*) echo "VAL ${line#?}" ;;
        *) echo "ERR unexpected reply $line" ;;
      esac
      exit 0
    done
    echo "ERR no reply from $h:$pt"
  }
}

# call with retries (WORKER_RETRIES, default 20, half a second apart): a Redis that stays away ends the worker (1).
must() {
  tries=0
  while :; do
    reply=$(call "$@")
    case $reply in
      'ERR no reply'*) ;;
      ERR*) die "$* -> ${reply#ERR }" 1 ;;
      *) return 0 ;;
    esac
    tries=$((tries + 1))
    [ "$tries" -lt "${WORKER_RETRIES:-20}" ] || die "$* -> ${reply#ERR }" 1
    sleep 0.5
  done
}

json() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

stopping=0
if [ "${WORKER_IGNORE_SIGTERM:-}" = 1 ]; then
  trap 'say "SIGTERM ignored (WORKER_IGNORE_SIGTERM=1)"' TERM
else
  trap 'say "SIGTERM: finishing the current item"; stopping=1' TERM
fi

delay_ms=${WORKER_DELAY_MS:-0}
idle_ms=${WORKER_IDLE_MS:-0}
processed=0
idle=0
say "started: $INPUT_QUEUE -> $OUTPUT_QUEUE (task ${TASK_NAME:--})"
while [ "$stopping" = 0 ]; do
  must IN RPOP "$INPUT_QUEUE"
  if [ "$reply" = NIL ]; then
    [ "$idle_ms" -ge 0 ] && [ "$idle" -ge "$idle_ms" ] && break
    sleep 0.1
    idle=$((idle + 100))
    continue
  fi
  idle=0
  item=${reply#VAL }
  [ "$delay_ms" -gt 0 ] && usleep $((delay_ms * 1000))
  result=$(printf '{"item":"%s","task":"%s","node":"%s","instance":"%s","pid":%d}' \
    "$(json "$item")" "$(json "${TASK_NAME:-}")" "$(json "${NODE_ID:-}")" "$(json "${INSTANCE_ID:-}")" $$)
  must OUT LPUSH "$OUTPUT_QUEUE" "$result"
  processed=$((processed + 1))
done
if [ "$stopping" = 1 ]; then
  say "stopped by SIGTERM after $processed items"
  exit 0
fi
say "input empty after $processed items"
exit "${WORKER_EXIT_CODE:-0}"
