module completions {

  # Session ids, from `claudio sessions complete-ids` (the newest that
  # match), each with its title.
  def "nu-complete claudio session-ids" [context: string] {
    let prefix = ($context | split row " " | last)
    (^claudio sessions complete-ids --describe -- $prefix | complete).stdout
    | lines
    | parse "{value}\t{description}"
  }

  def "nu-complete claudio color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete claudio permission_mode" [] {
    [ "default" "acceptEdits" "plan" "bypassPermissions" "dontAsk" "auto" ]
  }

  def "nu-complete claudio effort" [] {
    [ "low" "medium" "high" "xhigh" "max" ]
  }

  # A terminal chat, a pipeline tool and a session manager for Claude Code: answers stream as they are written, tool calls are shown and approved at the terminal, and past sessions are found, resumed, exported and priced.
  export extern claudio [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio color" # When to use colors [default: auto]
    --model: string           # Model for the session (e.g. sonnet, opus, or a full model name)
    --permission-mode: string@"nu-complete claudio permission_mode" # Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto
    --allowed-tools: string   # Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"
    --disallowed-tools: string # Tools never allowed (comma-separated or repeated)
    --max-turns: string       # Stop after this many agent turns
    --effort: string@"nu-complete claudio effort" # How hard the model thinks
    --fallback-model: string  # Models to try, in order, when the model is overloaded (comma-separated or repeated)
    --max-budget-usd: string  # End the turn once the session has cost this much, in US dollars
    --system-prompt: string   # Replace the system prompt
    --append-system-prompt: string # Add to the system prompt
    --add-dir: path           # Give the tools access to another directory (repeatable)
    --cwd: path               # Working directory for the session
    --resume(-r): string@"nu-complete claudio session-ids"      # Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory's sessions; Ctrl-A: every project)
    --continue(-c)            # Continue the most recent session of this directory
    --mcp-config: string      # MCP server configuration: JSON text or a file (repeatable)
    --verbose(-v)             # Show the CLI's own stderr as it runs
    --trust-workspace         # Load this folder's project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI
    --hide-thinking           # Don't show the model's thinking in the chat
    --vi                      # Edit the prompt with vi keys (`edit-mode = "vi"` in the config file)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete claudio ask output_format" [] {
    [ "text" "json" "stream-json" ]
  }

  def "nu-complete claudio ask permission_mode" [] {
    [ "default" "acceptEdits" "plan" "bypassPermissions" "dontAsk" "auto" ]
  }

  def "nu-complete claudio ask effort" [] {
    [ "low" "medium" "high" "xhigh" "max" ]
  }

  def "nu-complete claudio ask color" [] {
    [ "auto" "always" "never" ]
  }

  # Ask once and print the answer (made for shell pipelines)
  export extern "claudio ask" [
    --output(-o): string@"nu-complete claudio ask output_format" # What to print: the answer text, the final result as JSON, or every CLI message as NDJSON (stream-json, also spelled ndjson)
    --json-schema: string     # Answer in this shape: a JSON Schema, inline or `@FILE`. With `-o text` the answer printed is the JSON object the model returned
    --image: path             # Send this image (png, jpeg, gif or webp) beside the prompt; repeat for more. An image piped on stdin is sent as an image too
    --model: string           # Model for the session (e.g. sonnet, opus, or a full model name)
    --permission-mode: string@"nu-complete claudio ask permission_mode" # Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto
    --allowed-tools: string   # Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"
    --disallowed-tools: string # Tools never allowed (comma-separated or repeated)
    --max-turns: string       # Stop after this many agent turns
    --effort: string@"nu-complete claudio ask effort" # How hard the model thinks
    --fallback-model: string  # Models to try, in order, when the model is overloaded (comma-separated or repeated)
    --max-budget-usd: string  # End the turn once the session has cost this much, in US dollars
    --system-prompt: string   # Replace the system prompt
    --append-system-prompt: string # Add to the system prompt
    --add-dir: path           # Give the tools access to another directory (repeatable)
    --cwd: path               # Working directory for the session
    --resume(-r): string@"nu-complete claudio session-ids"      # Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory's sessions; Ctrl-A: every project)
    --continue(-c)            # Continue the most recent session of this directory
    --mcp-config: string      # MCP server configuration: JSON text or a file (repeatable)
    --verbose(-v)             # Show the CLI's own stderr as it runs
    --trust-workspace         # Load this folder's project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio ask color" # When to use colors [default: auto]
    --help(-h)                # Print help
    ...prompt: string         # The prompt (joined by spaces); piped stdin is appended
  ]

  def "nu-complete claudio sessions color" [] {
    [ "auto" "always" "never" ]
  }

  # List, show, resume, fork, rename, tag and delete sessions
  export extern "claudio sessions" [
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio sessions list output" [] {
    [ "text" "json" "ndjson" ]
  }

  def "nu-complete claudio sessions list color" [] {
    [ "auto" "always" "never" ]
  }

  # List sessions, newest first (this directory's, or --all)
  export extern "claudio sessions list" [
    --all(-a)                 # Every project's sessions, not only this directory's
    --cwd: path               # List this directory's sessions (and its git worktrees') instead of the current one
    --limit(-n): string       # At most this many sessions (the newest)
    --since: string           # Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)
    --output(-o): string@"nu-complete claudio sessions list output" # text (a table), json (one array) or ndjson (one session a line)
    --long(-l)                # With each session's usage: in the table, total tokens and the estimated cost; in JSON, tokens, models, prompts, API requests and the estimate. Reads whole transcripts, so it is slower
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions list color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio sessions inspect output" [] {
    [ "text" "json" "ndjson" ]
  }

  def "nu-complete claudio sessions inspect color" [] {
    [ "auto" "always" "never" ]
  }

  # Show a session's conversation as the CLI would resume it
  export extern "claudio sessions inspect" [
    --output(-o): string@"nu-complete claudio sessions inspect output" # text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)
    --subagents               # Also the session's sub-agent runs, each after the conversation
    --grep: string            # Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it
    --regex(-e)               # The --grep pattern is a regular expression (Rust regex syntax)
    --case-sensitive(-s)      # Case always matters to --grep
    --ignore-case(-i)         # Case never matters to --grep
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions inspect color" # When to use colors [default: auto]
    --help(-h)                # Print help
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
  ]

  def "nu-complete claudio sessions search output" [] {
    [ "text" "json" "ndjson" ]
  }

  def "nu-complete claudio sessions search color" [] {
    [ "auto" "always" "never" ]
  }

  # Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first
  export extern "claudio sessions search" [
    --all(-a)                 # Search every project's sessions, not only this directory's
    --cwd: path               # This directory's sessions (and its git worktrees') instead of the current one
    --regex(-e)               # The pattern is a regular expression (Rust regex syntax)
    --case-sensitive(-s)      # Case always matters
    --ignore-case(-i)         # Case never matters
    --tools                   # Also search tool inputs and outputs
    --since: string           # Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)
    --limit(-n): string       # At most this many sessions
    --hits: string            # At most this many hits per session
    --output(-o): string@"nu-complete claudio sessions search output" # text, json (one array of sessions) or ndjson (a session a line, as found)
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions search color" # When to use colors [default: auto]
    --help(-h)                # Print help
    pattern: string           # What to look for: a literal string (smart case: case matters only when it has an upper-case letter), or a regex with --regex
  ]

  def "nu-complete claudio sessions export output" [] {
    [ "md" "html" "json" ]
  }

  def "nu-complete claudio sessions export color" [] {
    [ "auto" "always" "never" ]
  }

  # Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)
  export extern "claudio sessions export" [
    --output(-o): string@"nu-complete claudio sessions export output" # md, html or json [default: md]
    --output-file(-O): path   # Write to this file (else stdout)
    --full                    # Keep every line of tool output (else the first 40 of each)
    --thinking                # Include the model's thinking
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions export color" # When to use colors [default: auto]
    --help(-h)                # Print help (see more with '--help')
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
  ]

  def "nu-complete claudio sessions usage by" [] {
    [ "day" "week" "month" "model" "project" "session" "block" ]
  }

  def "nu-complete claudio sessions usage output" [] {
    [ "text" "json" "ndjson" ]
  }

  def "nu-complete claudio sessions usage order" [] {
    [ "asc" "desc" ]
  }

  def "nu-complete claudio sessions usage start_of_week" [] {
    [ "monday" "tuesday" "wednesday" "thursday" "friday" "saturday" "sunday" ]
  }

  def "nu-complete claudio sessions usage color" [] {
    [ "auto" "always" "never" ]
  }

  # Tokens and estimated cost, by day, month, model, project, session or 5-hour block
  export extern "claudio sessions usage" [
    --all(-a)                 # Every project's sessions, not only this directory's
    --cwd: path               # This directory's sessions (and its git worktrees') instead of the current one
    --by: string@"nu-complete claudio sessions usage by" # Rows by day, month, model, project, session, or 5-hour billing window (block; the open one with its burn rate and projection)
    --since: string           # Only API messages since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)
    --limit(-n): string       # Count only this many sessions (the newest)
    --output(-o): string@"nu-complete claudio sessions usage output" # text (a table), json (one object) or ndjson (a row a line, then the total)
    --until: string           # Only API messages before then: a span back from now (12h, 7d), a date (2026-11-30: through that day) or a time
    --timezone: string        # Days, weeks, months and windows in this time zone (an IANA name: Europe/Paris, America/New_York, UTC) instead of TZ's; --since and --until dates are its midnights
    --breakdown               # Under each row, its tokens and cost by model (-o json always has them: modelBreakdowns)
    --order: string@"nu-complete claudio sessions usage order" # Rows oldest first (asc) or newest first (desc); by model, project or session the same order, reversed
    --start-of-week: string@"nu-complete claudio sessions usage start_of_week" # With --by week: the day weeks start on
    --no-cost                 # Leave the cost estimate out
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions usage color" # When to use colors [default: auto]
    --help(-h)                # Print help (see more with '--help')
  ]

  def "nu-complete claudio sessions resume color" [] {
    [ "auto" "always" "never" ]
  }

  # Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)
  export extern "claudio sessions resume" [
    --tui                     # The claude TUI instead of claudio's chat, its permission requests answerable from `claudio deck` (no settings file changed)
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions resume color" # When to use colors [default: auto]
    --help(-h)                # Print help
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
  ]

  def "nu-complete claudio sessions fork color" [] {
    [ "auto" "always" "never" ]
  }

  # Copy a session into a new one with fresh ids; prints the new id
  export extern "claudio sessions fork" [
    --at: string              # Copy only up to this message (its uuid or a unique prefix; see `show --json`)
    --title: string           # The fork's title (else the original's, marked "(fork)")
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions fork color" # When to use colors [default: auto]
    --help(-h)                # Print help
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
  ]

  def "nu-complete claudio sessions rename color" [] {
    [ "auto" "always" "never" ]
  }

  # Set a session's title (appends the CLI's custom-title line)
  export extern "claudio sessions rename" [
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions rename color" # When to use colors [default: auto]
    --help(-h)                # Print help
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
    title: string             # The new title
  ]

  def "nu-complete claudio sessions tag color" [] {
    [ "auto" "always" "never" ]
  }

  # Tag a session (appends the CLI's tag line)
  export extern "claudio sessions tag" [
    --clear                   # Remove the tag
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions tag color" # When to use colors [default: auto]
    --help(-h)                # Print help
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
    tag?: string              # The tag
  ]

  def "nu-complete claudio sessions delete color" [] {
    [ "auto" "always" "never" ]
  }

  # Delete a session's transcript (asks first, unless --yes)
  export extern "claudio sessions delete" [
    --yes(-y)                 # Don't ask for confirmation
    --archived-too            # Also delete the session's copies in claudio's archive (with their sub-agents), in the same step: what a leaked secret needs
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions delete color" # When to use colors [default: auto]
    --help(-h)                # Print help
    id: string@"nu-complete claudio session-ids"                # Session id or unique prefix
  ]

  def "nu-complete claudio sessions archive output" [] {
    [ "text" "json" "ndjson" ]
  }

  def "nu-complete claudio sessions archive color" [] {
    [ "auto" "always" "never" ]
  }

  # Copy every transcript into claudio's archive (compressed, only what changed), where the CLI's cleanup does not reach it
  export extern "claudio sessions archive" [
    --output(-o): string@"nu-complete claudio sessions archive output" # text, or json (the summary as one object on one line; ndjson is the same)
    --config-dir: path        # The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    --no-archive              # Leave out the sessions only claudio's archive holds
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio sessions archive color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio sessions help" [
  ]

  # List sessions, newest first (this directory's, or --all)
  export extern "claudio sessions help list" [
  ]

  # Show a session's conversation as the CLI would resume it
  export extern "claudio sessions help inspect" [
  ]

  # Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first
  export extern "claudio sessions help search" [
  ]

  # Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)
  export extern "claudio sessions help export" [
  ]

  # Tokens and estimated cost, by day, month, model, project, session or 5-hour block
  export extern "claudio sessions help usage" [
  ]

  # Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)
  export extern "claudio sessions help resume" [
  ]

  # Copy a session into a new one with fresh ids; prints the new id
  export extern "claudio sessions help fork" [
  ]

  # Set a session's title (appends the CLI's custom-title line)
  export extern "claudio sessions help rename" [
  ]

  # Tag a session (appends the CLI's tag line)
  export extern "claudio sessions help tag" [
  ]

  # Delete a session's transcript (asks first, unless --yes)
  export extern "claudio sessions help delete" [
  ]

  # Copy every transcript into claudio's archive (compressed, only what changed), where the CLI's cleanup does not reach it
  export extern "claudio sessions help archive" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio sessions help help" [
  ]

  def "nu-complete claudio tui color" [] {
    [ "auto" "always" "never" ]
  }

  # A new session in the claude TUI, answerable from `claudio deck`
  export extern "claudio tui" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio tui color" # When to use colors [default: auto]
    --help(-h)                # Print help
    ...args: string           # Arguments for the claude TUI, passed verbatim
  ]

  def "nu-complete claudio deck color" [] {
    [ "auto" "always" "never" ]
  }

  # Every running Claude Code session, and its permission requests answered from one place
  export extern "claudio deck" [
    --json                    # Print one snapshot of every running session as JSON (and the requests a running deck holds), and exit
    --watch                   # Print what changes as it changes, one JSON object a line (sessions appearing, changing, going; requests pending, answered)
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio deck color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio deck hooks color" [] {
    [ "auto" "always" "never" ]
  }

  # Install, check or remove the PermissionRequest hook in Claude Code's settings
  export extern "claudio deck hooks" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio deck hooks color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio deck hooks install color" [] {
    [ "auto" "always" "never" ]
  }

  # Add the hook (the change is shown and asked about first)
  export extern "claudio deck hooks install" [
    --yes(-y)                 # Write without asking (for scripts)
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio deck hooks install color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio deck hooks status color" [] {
    [ "auto" "always" "never" ]
  }

  # Say whether the hook is installed
  export extern "claudio deck hooks status" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio deck hooks status color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio deck hooks remove color" [] {
    [ "auto" "always" "never" ]
  }

  # Take the hook out again
  export extern "claudio deck hooks remove" [
    --yes(-y)                 # Write without asking (for scripts)
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio deck hooks remove color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio deck hooks help" [
  ]

  # Add the hook (the change is shown and asked about first)
  export extern "claudio deck hooks help install" [
  ]

  # Say whether the hook is installed
  export extern "claudio deck hooks help status" [
  ]

  # Take the hook out again
  export extern "claudio deck hooks help remove" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio deck hooks help help" [
  ]

  def "nu-complete claudio deck hook color" [] {
    [ "auto" "always" "never" ]
  }

  # The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)
  export extern "claudio deck hook" [
    --wait: string            # The most seconds to wait for the deck's answer
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio deck hook color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio deck help" [
  ]

  # Install, check or remove the PermissionRequest hook in Claude Code's settings
  export extern "claudio deck help hooks" [
  ]

  # Add the hook (the change is shown and asked about first)
  export extern "claudio deck help hooks install" [
  ]

  # Say whether the hook is installed
  export extern "claudio deck help hooks status" [
  ]

  # Take the hook out again
  export extern "claudio deck help hooks remove" [
  ]

  # The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)
  export extern "claudio deck help hook" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio deck help help" [
  ]

  def "nu-complete claudio doctor color" [] {
    [ "auto" "always" "never" ]
  }

  # Check that everything claudio needs is in place
  export extern "claudio doctor" [
    --verbose(-v)             # Say more: every place the CLI was looked for
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio doctor color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio config color" [] {
    [ "auto" "always" "never" ]
  }

  # Show the config file's path or its settings
  export extern "claudio config" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio config color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio config path color" [] {
    [ "auto" "always" "never" ]
  }

  # Print the path of the config file in use
  export extern "claudio config path" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio config path color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio config show color" [] {
    [ "auto" "always" "never" ]
  }

  # Print the settings the config file gives
  export extern "claudio config show" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio config show color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio config help" [
  ]

  # Print the path of the config file in use
  export extern "claudio config help path" [
  ]

  # Print the settings the config file gives
  export extern "claudio config help show" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio config help help" [
  ]

  def "nu-complete claudio notify color" [] {
    [ "auto" "always" "never" ]
  }

  # Notices when a session needs you: `claudio notify test` sends one through every way the config file's `[notify]` table sets
  export extern "claudio notify" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio notify color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio notify test color" [] {
    [ "auto" "always" "never" ]
  }

  # Send a test notice through every way set, and say what failed
  export extern "claudio notify test" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio notify test color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio notify help" [
  ]

  # Send a test notice through every way set, and say what failed
  export extern "claudio notify help test" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio notify help help" [
  ]

  def "nu-complete claudio statusline color" [] {
    [ "auto" "always" "never" ]
  }

  # Print one status line for the claude TUI (its `statusLine` command)
  export extern "claudio statusline" [
    --format: string          # The line's template: placeholders in braces (listed below)
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio statusline color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  def "nu-complete claudio completions shell" [] {
    [ "bash" "zsh" "fish" "elvish" "powershell" "nushell" ]
  }

  def "nu-complete claudio completions color" [] {
    [ "auto" "always" "never" ]
  }

  # Print a shell completion script
  export extern "claudio completions" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio completions color" # When to use colors [default: auto]
    --help(-h)                # Print help
    shell: string@"nu-complete claudio completions shell" # The shell
  ]

  def "nu-complete claudio man color" [] {
    [ "auto" "always" "never" ]
  }

  # Print the man page (roff)
  export extern "claudio man" [
    --cli-path: path          # Path of the `claude` executable
    --debug                   # Log claudio's own decisions on stderr (never secrets)
    --color: string@"nu-complete claudio man color" # When to use colors [default: auto]
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio help" [
  ]

  # Ask once and print the answer (made for shell pipelines)
  export extern "claudio help ask" [
  ]

  # List, show, resume, fork, rename, tag and delete sessions
  export extern "claudio help sessions" [
  ]

  # List sessions, newest first (this directory's, or --all)
  export extern "claudio help sessions list" [
  ]

  # Show a session's conversation as the CLI would resume it
  export extern "claudio help sessions inspect" [
  ]

  # Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first
  export extern "claudio help sessions search" [
  ]

  # Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)
  export extern "claudio help sessions export" [
  ]

  # Tokens and estimated cost, by day, month, model, project, session or 5-hour block
  export extern "claudio help sessions usage" [
  ]

  # Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)
  export extern "claudio help sessions resume" [
  ]

  # Copy a session into a new one with fresh ids; prints the new id
  export extern "claudio help sessions fork" [
  ]

  # Set a session's title (appends the CLI's custom-title line)
  export extern "claudio help sessions rename" [
  ]

  # Tag a session (appends the CLI's tag line)
  export extern "claudio help sessions tag" [
  ]

  # Delete a session's transcript (asks first, unless --yes)
  export extern "claudio help sessions delete" [
  ]

  # Copy every transcript into claudio's archive (compressed, only what changed), where the CLI's cleanup does not reach it
  export extern "claudio help sessions archive" [
  ]

  # A new session in the claude TUI, answerable from `claudio deck`
  export extern "claudio help tui" [
  ]

  # Every running Claude Code session, and its permission requests answered from one place
  export extern "claudio help deck" [
  ]

  # Install, check or remove the PermissionRequest hook in Claude Code's settings
  export extern "claudio help deck hooks" [
  ]

  # Add the hook (the change is shown and asked about first)
  export extern "claudio help deck hooks install" [
  ]

  # Say whether the hook is installed
  export extern "claudio help deck hooks status" [
  ]

  # Take the hook out again
  export extern "claudio help deck hooks remove" [
  ]

  # The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)
  export extern "claudio help deck hook" [
  ]

  # Check that everything claudio needs is in place
  export extern "claudio help doctor" [
  ]

  # Show the config file's path or its settings
  export extern "claudio help config" [
  ]

  # Print the path of the config file in use
  export extern "claudio help config path" [
  ]

  # Print the settings the config file gives
  export extern "claudio help config show" [
  ]

  # Notices when a session needs you: `claudio notify test` sends one through every way the config file's `[notify]` table sets
  export extern "claudio help notify" [
  ]

  # Send a test notice through every way set, and say what failed
  export extern "claudio help notify test" [
  ]

  # Print one status line for the claude TUI (its `statusLine` command)
  export extern "claudio help statusline" [
  ]

  # Print a shell completion script
  export extern "claudio help completions" [
  ]

  # Print the man page (roff)
  export extern "claudio help man" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "claudio help help" [
  ]

}

export use completions *
