#!/usr/bin/env bash
# Remakes the README's picture of the chat: the real Claude Code CLI against
# a scripted Messages API (docs/demo/mock_api.py), claudio in an 80x30 tmux
# window, driven with send-keys, the screen captured as text.
#
#   docs/demo/record.sh                  # prints the final screen
#   docs/demo/record.sh -e               # with colors (tmux capture-pane -e)
#
# Needs tmux, python3, a built claudio (target/debug or target/release, or
# $CLAUDIO) and the CLI scripts/test installs (or $CLAUDIO_CLI). Everything
# it writes is under a temporary folder, removed at the end; no network.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
capture_flags=${1:-}

claudio=${CLAUDIO:-}
for c in target/release/claudio target/debug/claudio; do
  [ -n "$claudio" ] || { [ -x "$c" ] && claudio=$root/$c; }
done
[ -n "$claudio" ] || { echo "record.sh: build claudio first (cargo build)" >&2; exit 1; }
cli=${CLAUDIO_CLI:-${XDG_CACHE_HOME:-$HOME/.cache}/claudio/claude-code-2.1.332/node_modules/.bin/claude}
[ -x "$cli" ] || { echo "record.sh: no Claude Code CLI at $cli (scripts/test installs it)" >&2; exit 1; }

# A fixed folder, so the picture names the same paths every time.
t=${TMPDIR:-/tmp}/claudio-demo
rm -rf "$t"
mkdir -p "$t"
session=claudio-demo-$$
server_pid=
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$t"
}
trap cleanup EXIT

# A small project with a failing test.
proj=$t/home/code/shop
mkdir -p "$proj" "$t/home/.claude" "$t/cfg" "$t/archive"
cat > "$proj/checkout.py" <<'PY'
def total(subtotal, discount):
    """The amount to pay."""
    return subtotal - discount
PY
cat > "$proj/test_checkout.py" <<'PY'
import unittest
from checkout import total


class Total(unittest.TestCase):
    def test_small_discount(self):
        self.assertEqual(total(10, 3), 7)

    def test_big_discount(self):
        self.assertEqual(total(10, 15), 0)
PY
(cd "$proj" && git init -q -b main && git add . && git -c user.name=demo -c user.email=demo@example.com commit -qm start)

# The scripted model, on a free port.
python3 docs/demo/mock_api.py 0 "$proj" > "$t/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$t/port" ] && break; sleep 0.1; done
port=$(head -1 "$t/port")

tmux new-session -d -s "$session" -x 80 -y 30 -c "$proj" \
  "env -i PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 HOME=$t/home SHELL=/bin/sh \
   CLAUDE_CONFIG_DIR=$t/home/.claude XDG_CONFIG_HOME=$t/cfg XDG_DATA_HOME=$t/data \
   CLAUDIO_ARCHIVE_DIR=$t/archive ANTHROPIC_BASE_URL=http://127.0.0.1:$port \
   ANTHROPIC_API_KEY=demo CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
   DISABLE_AUTOUPDATER=1 CLAUDIO_CLI=$cli $claudio"

# Wait until the window's history shows $1 (a fixed string) $2 times (1
# unless given), up to 30 s.
wait_for() {
  for _ in $(seq 300); do
    n=$(tmux capture-pane -p -S - -t "$session" | grep -cF -- "$1" || true)
    [ "$n" -ge "${2:-1}" ] && return 0
    sleep 0.1
  done
  echo "record.sh: never saw: $1" >&2
  tmux capture-pane -p -S - -t "$session" >&2
  exit 1
}

wait_for "Ctrl-D exits"
sleep 1
tmux send-keys -t "$session" "why does the big discount test fail?" Enter
wait_for "Allow?"
sleep 0.5
tmux send-keys -t "$session" y Enter          # run the tests, once
wait_for "Allow?" 2
sleep 0.5
tmux send-keys -t "$session" y Enter          # make the edit, once
wait_for " ── "
sleep 0.5
# The whole window, history included, as text (-e: with its colors); the
# trailing empty lines cut.
tmux capture-pane -p -S - $capture_flags -t "$session" | sed -e 's/ *$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
tmux send-keys -t "$session" C-d
for _ in $(seq 50); do tmux has-session -t "$session" 2>/dev/null || break; sleep 0.1; done
