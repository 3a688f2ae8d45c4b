# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_claudio_global_optspecs
    string join \n cli-path= debug color= model= permission-mode= allowed-tools= disallowed-tools= max-turns= effort= fallback-model= max-budget-usd= system-prompt= append-system-prompt= add-dir= cwd= r/resume= c/continue mcp-config= v/verbose trust-workspace hide-thinking vi h/help V/version
end

function __fish_claudio_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_claudio_global_optspecs) -- $cmd 2>/dev/null
    or argparse -s (__fish_claudio_global_optspecs) -- $cmd[1..-2] 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_claudio_using_subcommand
    set -l cmd (__fish_claudio_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c claudio -n "__fish_claudio_needs_command" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_needs_command" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_needs_command" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r -f -a "default\t''
acceptEdits\t''
plan\t''
bypassPermissions\t''
dontAsk\t''
auto\t''"
complete -c claudio -n "__fish_claudio_needs_command" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_needs_command" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_needs_command" -l effort -d 'How hard the model thinks' -r -f -a "low\t''
medium\t''
high\t''
xhigh\t''
max\t''"
complete -c claudio -n "__fish_claudio_needs_command" -l fallback-model -d 'Models to try, in order, when the model is overloaded (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l max-budget-usd -d 'End the turn once the session has cost this much, in US dollars' -r
complete -c claudio -n "__fish_claudio_needs_command" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_needs_command" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_needs_command" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_needs_command" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_needs_command" -s r -l resume -d 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory\'s sessions; Ctrl-A: every project)' -r -f -a "(__fish_claudio_session_ids)"
complete -c claudio -n "__fish_claudio_needs_command" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_needs_command" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_needs_command" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_needs_command" -l trust-workspace -d 'Load this folder\'s project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI'
complete -c claudio -n "__fish_claudio_needs_command" -l hide-thinking -d 'Don\'t show the model\'s thinking in the chat'
complete -c claudio -n "__fish_claudio_needs_command" -l vi -d 'Edit the prompt with vi keys (`edit-mode = "vi"` in the config file)'
complete -c claudio -n "__fish_claudio_needs_command" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_needs_command" -s V -l version -d 'Print version'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "ask" -d 'Ask once and print the answer (made for shell pipelines)'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "sessions" -d 'List, show, resume, fork, rename, tag and delete sessions'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "tui" -d 'A new session in the claude TUI, answerable from `claudio deck`'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "deck" -d 'Every running Claude Code session, and its permission requests answered from one place'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "doctor" -d 'Check that everything claudio needs is in place'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "config" -d 'Show the config file\'s path or its settings'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "notify" -d 'Notices when a session needs you: `claudio notify test` sends one through every way the config file\'s `[notify]` table sets'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "statusline" -d 'Print one status line for the claude TUI (its `statusLine` command)'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s o -l output -d 'What to print: the answer text, the final result as JSON, or every CLI message as NDJSON (stream-json, also spelled ndjson)' -r -f -a "text\t''
json\t''
stream-json\t''"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l json-schema -d 'Answer in this shape: a JSON Schema, inline or `@FILE`. With `-o text` the answer printed is the JSON object the model returned' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l image -d 'Send this image (png, jpeg, gif or webp) beside the prompt; repeat for more. An image piped on stdin is sent as an image too' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r -f -a "default\t''
acceptEdits\t''
plan\t''
bypassPermissions\t''
dontAsk\t''
auto\t''"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l effort -d 'How hard the model thinks' -r -f -a "low\t''
medium\t''
high\t''
xhigh\t''
max\t''"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l fallback-model -d 'Models to try, in order, when the model is overloaded (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l max-budget-usd -d 'End the turn once the session has cost this much, in US dollars' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s r -l resume -d 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory\'s sessions; Ctrl-A: every project)' -r -f -a "(__fish_claudio_session_ids)"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l trust-workspace -d 'Load this folder\'s project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "list" -d 'List sessions, newest first (this directory\'s, or --all)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "inspect" -d 'Show a session\'s conversation as the CLI would resume it'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "show" -d 'Show a session\'s conversation as the CLI would resume it'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "search" -d 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "export" -d 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "usage" -d 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "resume" -d 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "fork" -d 'Copy a session into a new one with fresh ids; prints the new id'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "rename" -d 'Set a session\'s title (appends the CLI\'s custom-title line)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "tag" -d 'Tag a session (appends the CLI\'s tag line)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "delete" -d 'Delete a session\'s transcript (asks first, unless --yes)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "archive" -d 'Copy every transcript into claudio\'s archive (compressed, only what changed), where the CLI\'s cleanup does not reach it'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and not __fish_seen_subcommand_from list inspect show search export usage resume fork rename tag delete archive help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l cwd -d 'List this directory\'s sessions (and its git worktrees\') instead of the current one' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -s n -l limit -d 'At most this many sessions (the newest)' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l since -d 'Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -s o -l output -d 'text (a table), json (one array) or ndjson (one session a line)' -r -f -a "text\t''
json\t''
ndjson\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -s a -l all -d 'Every project\'s sessions, not only this directory\'s'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -s l -l long -d 'With each session\'s usage: in the table, total tokens and the estimated cost; in JSON, tokens, models, prompts, API requests and the estimate. Reads whole transcripts, so it is slower'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -s o -l output -d 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)' -r -f -a "text\t''
json\t''
ndjson\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l grep -d 'Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l subagents -d 'Also the session\'s sub-agent runs, each after the conversation'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -s e -l regex -d 'The --grep pattern is a regular expression (Rust regex syntax)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -s s -l case-sensitive -d 'Case always matters to --grep'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -s i -l ignore-case -d 'Case never matters to --grep'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -s o -l output -d 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)' -r -f -a "text\t''
json\t''
ndjson\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l grep -d 'Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l subagents -d 'Also the session\'s sub-agent runs, each after the conversation'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -s e -l regex -d 'The --grep pattern is a regular expression (Rust regex syntax)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -s s -l case-sensitive -d 'Case always matters to --grep'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -s i -l ignore-case -d 'Case never matters to --grep'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l cwd -d 'This directory\'s sessions (and its git worktrees\') instead of the current one' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l since -d 'Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s n -l limit -d 'At most this many sessions' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l hits -d 'At most this many hits per session' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s o -l output -d 'text, json (one array of sessions) or ndjson (a session a line, as found)' -r -f -a "text\t''
json\t''
ndjson\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s a -l all -d 'Search every project\'s sessions, not only this directory\'s'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s e -l regex -d 'The pattern is a regular expression (Rust regex syntax)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s s -l case-sensitive -d 'Case always matters'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s i -l ignore-case -d 'Case never matters'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l tools -d 'Also search tool inputs and outputs'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -s o -l output -d 'md, html or json [default: md]' -r -f -a "md\t'Markdown, to paste into an issue or a doc'
html\t'One self-contained HTML page (no scripts, no network)'
json\t'The visible conversation as one JSON array'"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -s O -l output-file -d 'Write to this file (else stdout)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l full -d 'Keep every line of tool output (else the first 40 of each)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l thinking -d 'Include the model\'s thinking'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l cwd -d 'This directory\'s sessions (and its git worktrees\') instead of the current one' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l by -d 'Rows by day, month, model, project, session, or 5-hour billing window (block; the open one with its burn rate and projection)' -r -f -a "day\t''
week\t'Weeks, each keyed by its first day (Monday unless --start-of-week)'
month\t''
model\t''
project\t''
session\t''
block\t'5-hour billing windows, as the subscription plans count them'"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l since -d 'Only API messages since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -s n -l limit -d 'Count only this many sessions (the newest)' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -s o -l output -d 'text (a table), json (one object) or ndjson (a row a line, then the total)' -r -f -a "text\t''
json\t''
ndjson\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l until -d 'Only API messages before then: a span back from now (12h, 7d), a date (2026-11-30: through that day) or a time' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l timezone -d 'Days, weeks, months and windows in this time zone (an IANA name: Europe/Paris, America/New_York, UTC) instead of TZ\'s; --since and --until dates are its midnights' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l order -d 'Rows oldest first (asc) or newest first (desc); by model, project or session the same order, reversed' -r -f -a "asc\t''
desc\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l start-of-week -d 'With --by week: the day weeks start on' -r -f -a "monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''
sunday\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -s a -l all -d 'Every project\'s sessions, not only this directory\'s'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l breakdown -d 'Under each row, its tokens and cost by model (-o json always has them: modelBreakdowns)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l no-cost -d 'Leave the cost estimate out'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -l tui -d 'The claude TUI instead of claudio\'s chat, its permission requests answerable from `claudio deck` (no settings file changed)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l at -d 'Copy only up to this message (its uuid or a unique prefix; see `show --json`)' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l title -d 'The fork\'s title (else the original\'s, marked "(fork)")' -r
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -l clear -d 'Remove the tag'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Don\'t ask for confirmation'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -l archived-too -d 'Also delete the session\'s copies in claudio\'s archive (with their sub-agents), in the same step: what a leaked secret needs'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -s o -l output -d 'text, or json (the summary as one object on one line; ndjson is the same)' -r -f -a "text\t''
json\t''
ndjson\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -l config-dir -d 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -l no-archive -d 'Leave out the sessions only claudio\'s archive holds'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from archive" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "list" -d 'List sessions, newest first (this directory\'s, or --all)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "inspect" -d 'Show a session\'s conversation as the CLI would resume it'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "search" -d 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "usage" -d 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "fork" -d 'Copy a session into a new one with fresh ids; prints the new id'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "rename" -d 'Set a session\'s title (appends the CLI\'s custom-title line)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Tag a session (appends the CLI\'s tag line)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a session\'s transcript (asks first, unless --yes)'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "archive" -d 'Copy every transcript into claudio\'s archive (compressed, only what changed), where the CLI\'s cleanup does not reach it'
complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand tui" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand tui" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand tui" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand tui" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -l json -d 'Print one snapshot of every running session as JSON (and the requests a running deck holds), and exit'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -l watch -d 'Print what changes as it changes, one JSON object a line (sessions appearing, changing, going; requests pending, answered)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -f -a "hooks" -d 'Install, check or remove the PermissionRequest hook in Claude Code\'s settings'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -f -a "hook" -d 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and not __fish_seen_subcommand_from hooks hook help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -f -a "install" -d 'Add the hook (the change is shown and asked about first)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -f -a "status" -d 'Say whether the hook is installed'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -f -a "remove" -d 'Take the hook out again'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hooks" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hook" -l wait -d 'The most seconds to wait for the deck\'s answer' -r
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hook" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hook" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hook" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from hook" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from help" -f -a "hooks" -d 'Install, check or remove the PermissionRequest hook in Claude Code\'s settings'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from help" -f -a "hook" -d 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)'
complete -c claudio -n "__fish_claudio_using_subcommand deck; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -s v -l verbose -d 'Say more: every place the CLI was looked for'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -f -a "path" -d 'Print the path of the config file in use'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -f -a "show" -d 'Print the settings the config file gives'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the path of the config file in use'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the settings the config file gives'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and not __fish_seen_subcommand_from test help" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand notify; and not __fish_seen_subcommand_from test help" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand notify; and not __fish_seen_subcommand_from test help" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and not __fish_seen_subcommand_from test help" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and not __fish_seen_subcommand_from test help" -f -a "test" -d 'Send a test notice through every way set, and say what failed'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and not __fish_seen_subcommand_from test help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and __fish_seen_subcommand_from test" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand notify; and __fish_seen_subcommand_from test" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand notify; and __fish_seen_subcommand_from test" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and __fish_seen_subcommand_from help" -f -a "test" -d 'Send a test notice through every way set, and say what failed'
complete -c claudio -n "__fish_claudio_using_subcommand notify; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand statusline" -l format -d 'The line\'s template: placeholders in braces (listed below)' -r
complete -c claudio -n "__fish_claudio_using_subcommand statusline" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand statusline" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand statusline" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand statusline" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand completions" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand man" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand man" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand man" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand man" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "ask" -d 'Ask once and print the answer (made for shell pipelines)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "sessions" -d 'List, show, resume, fork, rename, tag and delete sessions'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "tui" -d 'A new session in the claude TUI, answerable from `claudio deck`'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "deck" -d 'Every running Claude Code session, and its permission requests answered from one place'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "doctor" -d 'Check that everything claudio needs is in place'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "config" -d 'Show the config file\'s path or its settings'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "notify" -d 'Notices when a session needs you: `claudio notify test` sends one through every way the config file\'s `[notify]` table sets'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "statusline" -d 'Print one status line for the claude TUI (its `statusLine` command)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "man" -d 'Print the man page (roff)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask sessions tui deck doctor config notify statusline completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "list" -d 'List sessions, newest first (this directory\'s, or --all)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "inspect" -d 'Show a session\'s conversation as the CLI would resume it'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "search" -d 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "export" -d 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "usage" -d 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "resume" -d 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "fork" -d 'Copy a session into a new one with fresh ids; prints the new id'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "rename" -d 'Set a session\'s title (appends the CLI\'s custom-title line)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "tag" -d 'Tag a session (appends the CLI\'s tag line)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "delete" -d 'Delete a session\'s transcript (asks first, unless --yes)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "archive" -d 'Copy every transcript into claudio\'s archive (compressed, only what changed), where the CLI\'s cleanup does not reach it'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from deck" -f -a "hooks" -d 'Install, check or remove the PermissionRequest hook in Claude Code\'s settings'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from deck" -f -a "hook" -d 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the path of the config file in use'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the settings the config file gives'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from notify" -f -a "test" -d 'Send a test notice through every way set, and say what failed'

# Session ids, from `claudio sessions complete-ids` (the newest that match),
# each with its title.
function __fish_claudio_session_ids
    claudio sessions complete-ids --describe -- (commandline -ct) 2>/dev/null
end

function __fish_claudio_wants_session_id
    set -l n 0
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case '--add-dir' '--allowed-tools' '--append-system-prompt' '--at' '--by' '--cli-path' '--color' '--config-dir' '--cwd' '--disallowed-tools' '--effort' '--fallback-model' '--format' '--grep' '--hits' '--image' '--json-schema' '--limit' '--max-budget-usd' '--max-turns' '--mcp-config' '--model' '--order' '--output' '--output-file' '--permission-mode' '--since' '--start-of-week' '--system-prompt' '--timezone' '--title' '--until' '--wait' '-O' '-n' '-o'
                set skip 1
            case '-*'
            case '*'
                set n (math $n + 1)
        end
    end
    test $skip = 0; and test $n -eq 2
end

complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from inspect show export resume fork rename tag delete; and __fish_claudio_wants_session_id" -f -a "(__fish_claudio_session_ids)"
