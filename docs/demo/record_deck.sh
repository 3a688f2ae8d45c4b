#!/usr/bin/env bash
# Remakes the README's picture of `claudio deck`: two real claude TUIs (the
# CLI scripts/test installs) against the scripted Messages API
# (docs/demo/mock_api.py), the PermissionRequest hook installed with
# `claudio deck hooks install`, and the deck in an 80x24 tmux window. One
# TUI is asked to run the tests (its Bash call waits on the deck), the other
# sits at its prompt. The deck's window is captured as text.
#
#   docs/demo/record_deck.sh             # prints the deck's screen
#   docs/demo/record_deck.sh -e          # with colors (tmux capture-pane -e)
#
# Needs tmux, python3, a built claudio and the CLI 2.1.332 (or
# $CLAUDIO_CLI). Everything it writes is under a temporary folder, removed
# at the end; no network. The recording itself drives the TUIs with
# send-keys and reads their panes; the deck never does.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
capture_flags=${1:-}

claudio=${CLAUDIO:-}
for c in target/release/claudio target/debug/claudio; do
  [ -n "$claudio" ] || { [ -x "$c" ] && claudio=$root/$c; }
done
[ -n "$claudio" ] || { echo "record_deck.sh: build claudio first (cargo build)" >&2; exit 1; }
cli=${CLAUDIO_CLI:-${XDG_CACHE_HOME:-$HOME/.cache}/claudio/claude-code-2.1.332/node_modules/.bin/claude}
[ -x "$cli" ] || { echo "record_deck.sh: no Claude Code CLI at $cli (scripts/test installs it)" >&2; exit 1; }

t=${TMPDIR:-/tmp}/claudio-deck-demo
rm -rf "$t"
mkdir -p "$t"
session=claudio-deck-demo-$$
server_pid=
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  sleep 1  # the TUIs write their last files as they go
  rm -rf "$t" 2>/dev/null || true
}
trap cleanup EXIT

shop=$t/home/code/shop
notes=$t/home/code/notes
mkdir -p "$shop" "$notes" "$t/home/.claude" "$t/run" "$t/cfg"
chmod 700 "$t/run"
printf 'def total(subtotal, discount):\n    return subtotal - discount\n' > "$shop/checkout.py"
# The TUI offline at once (protocol.md §11): onboarding done, the key
# approved (its last 20 characters), the folders trusted, prompts on.
cat > "$t/home/.claude/.claude.json" <<JSON
{"hasCompletedOnboarding": true, "hasSeenAutoDefaultNotice": true,
 "customApiKeyResponses": {"approved": ["demo"], "rejected": []},
 "projects": {"$shop": {"hasTrustDialogAccepted": true},
              "$notes": {"hasTrustDialogAccepted": true}}}
JSON
echo '{"permissions": {"defaultMode": "default"}}' > "$t/home/.claude/settings.json"

python3 docs/demo/mock_api.py 0 "$shop" > "$t/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$t/port" ] && break; sleep 0.1; done
port=$(head -1 "$t/port")

envs="PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 HOME=$t/home SHELL=/bin/sh \
  CLAUDE_CONFIG_DIR=$t/home/.claude XDG_CONFIG_HOME=$t/cfg XDG_RUNTIME_DIR=$t/run \
  ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=demo \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1"
env -i $envs "$claudio" deck hooks install --yes > /dev/null

tmux new-session -d -s "$session" -x 80 -y 24 -c "$t/home" "env -i $envs $claudio deck"
tmux new-window -d -t "$session:1" -c "$shop" "env -i $envs $cli"
tmux new-window -d -t "$session:2" -c "$notes" "env -i $envs $cli"

# Wait until window $1 shows $2 (a fixed string), up to 30 s.
wait_for() {
  for _ in $(seq 300); do
    tmux capture-pane -p -t "$session:$1" | grep -qF -- "$2" && return 0
    sleep 0.1
  done
  echo "record_deck.sh: window $1 never showed: $2" >&2
  tmux capture-pane -p -t "$session:$1" >&2
  exit 1
}

# The TUI may offer to make auto mode the default: no, keep manual mode.
keep_manual() {
  for _ in $(seq 30); do
    if tmux capture-pane -p -t "$session:$1" | grep -qF "Make auto mode your default"; then
      sleep 0.5
      tmux send-keys -t "$session:$1" Down
      sleep 0.3
      tmux send-keys -t "$session:$1" Enter
      return 0
    fi
    sleep 0.1
  done
}

wait_for 0 "claudio deck"
for w in 1 2; do
  wait_for $w "Claude Code v"
  keep_manual $w
  wait_for $w "manual mode on"
done
sleep 1
tmux send-keys -t "$session:1" "why does the big discount test fail?"
sleep 0.5
tmux send-keys -t "$session:1" Enter
wait_for 0 "python3 -m unittest"
wait_for 0 "notes"
sleep 1
tmux capture-pane -p $capture_flags -t "$session:0" | sed -e 's/ *$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
tmux send-keys -t "$session:0" q
