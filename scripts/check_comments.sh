#!/usr/bin/env bash
# Fails (exit 1, one file:line per offence) when src/, include/ or tests/ narrate the project's
# history instead of saying what the code does and why: dates, work sessions, numbered runs,
# attempts or rounds, and references to planning notes or paths outside the repository.
# Measurements belong in docs/performance.md; a comment keeps the conclusion, not the diary.
# Usage: scripts/check_comments.sh [DIR...]   (default: src include tests)
set -euo pipefail
cd "$(dirname "$0")/.."

dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(src include tests)

ordinal='first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth'
ordinal+='|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth'
ordinal+='|twentieth|thirtieth|fortieth|\d+(?:st|nd|rd|th)'
month='Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?'
month+='|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?'
# A count of things after "run N" is ordinary prose ("each warp runs 4 tiles"), not a run number.
units='x|times|threads?|blocks?|warps?|tiles?|elements?|bytes?|passes|iterations?|rows?'
units+='|columns?|cols?|stages?|kernels?|reps?|[KMG]i?B'

# One Perl-compatible pattern per kind of offence (grep -P); each is listed with its reason.
patterns=(
  'ISO date|\b20\d\d-\d\d-\d\d\b'
  "month-year date|\\b(?:${month})\\.?,?\\s+(?:19|20)\\d\\d\\b"
  'session|(?i)session'
  "numbered run|(?i)\\bruns?\\s+#?\\d+(?!\\.?\\d|\\s*(?:${units})\\b)"
  "ordinal session/attempt/run/try/round|(?i)\\b(?:${ordinal})[\\s-]+(?:sessions?|attempts?|runs?|tries|try|rounds?)\\b"
  'numbered attempt|(?i)\battempts?\s+#?\d+'
  'planning notes (DESIGN.md)|DESIGN\.md'
  'path outside the repository (../shared, seeds/)|\.\./shared\b|\bseeds/'
)

hits=$(mktemp)
trap 'rm -f "$hits"' EXIT
for entry in "${patterns[@]}"; do
  reason=${entry%%|*}
  pattern=${entry#*|}
  rc=0
  grep -rIHPn --exclude-dir=.git "$pattern" "${dirs[@]}" >"$hits.tmp" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "check_comments: grep failed on the pattern for '$reason'" >&2
    exit 2
  fi
  # file:line:text -> file:line<TAB>reason<TAB>text
  sed -E "s/^([^:]*:[0-9]+):[[:space:]]*(.{0,160}).*/\1\t${reason//\//\\/}\t\2/" "$hits.tmp" >>"$hits"
done
rm -f "$hits.tmp"

if [ -s "$hits" ]; then
  # One line per offending source line, its reasons joined.
  sort -t: -k1,1 -k2,2n "$hits" | awk -F'\t' '
    $1 == prev { reasons = reasons ", " $2; next }
    { if (prev != "") print prev ": [" reasons "] " text; prev = $1; reasons = $2; text = $3 }
    END { if (prev != "") print prev ": [" reasons "] " text; }'
  count=$(cut -f1 "$hits" | sort -u | wc -l)
  echo "check_comments: $count line(s) narrate history; say what the code does and why instead" >&2
  exit 1
fi
echo "check_comments: ok (${dirs[*]})"
