
use builtin;
use str;

set edit:completion:arg-completer[claudio] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'claudio'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'claudio'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --model 'Model for the session (e.g. sonnet, opus, or a full model name)'
            cand --permission-mode 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto'
            cand --allowed-tools 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"'
            cand --disallowed-tools 'Tools never allowed (comma-separated or repeated)'
            cand --max-turns 'Stop after this many agent turns'
            cand --effort 'How hard the model thinks'
            cand --fallback-model 'Models to try, in order, when the model is overloaded (comma-separated or repeated)'
            cand --max-budget-usd 'End the turn once the session has cost this much, in US dollars'
            cand --system-prompt 'Replace the system prompt'
            cand --append-system-prompt 'Add to the system prompt'
            cand --add-dir 'Give the tools access to another directory (repeatable)'
            cand --cwd 'Working directory for the session'
            cand -r 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)'
            cand --resume 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)'
            cand --mcp-config 'MCP server configuration: JSON text or a file (repeatable)'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -c 'Continue the most recent session of this directory'
            cand --continue 'Continue the most recent session of this directory'
            cand -v 'Show the CLI''s own stderr as it runs'
            cand --verbose 'Show the CLI''s own stderr as it runs'
            cand --trust-workspace 'Load this folder''s project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI'
            cand --hide-thinking 'Don''t show the model''s thinking in the chat'
            cand --vi 'Edit the prompt with vi keys (`edit-mode = "vi"` in the config file)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand ask 'Ask once and print the answer (made for shell pipelines)'
            cand sessions 'List, show, resume, fork, rename, tag and delete sessions'
            cand tui 'A new session in the claude TUI, answerable from `claudio deck`'
            cand deck 'Every running Claude Code session, and its permission requests answered from one place'
            cand doctor 'Check that everything claudio needs is in place'
            cand config 'Show the config file''s path or its settings'
            cand notify 'Notices when a session needs you: `claudio notify test` sends one through every way the config file''s `[notify]` table sets'
            cand statusline 'Print one status line for the claude TUI (its `statusLine` command)'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;ask'= {
            cand -o 'What to print: the answer text, the final result as JSON, or every CLI message as NDJSON (stream-json, also spelled ndjson)'
            cand --output 'What to print: the answer text, the final result as JSON, or every CLI message as NDJSON (stream-json, also spelled ndjson)'
            cand --json-schema 'Answer in this shape: a JSON Schema, inline or `@FILE`. With `-o text` the answer printed is the JSON object the model returned'
            cand --image 'Send this image (png, jpeg, gif or webp) beside the prompt; repeat for more. An image piped on stdin is sent as an image too'
            cand --model 'Model for the session (e.g. sonnet, opus, or a full model name)'
            cand --permission-mode 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto'
            cand --allowed-tools 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"'
            cand --disallowed-tools 'Tools never allowed (comma-separated or repeated)'
            cand --max-turns 'Stop after this many agent turns'
            cand --effort 'How hard the model thinks'
            cand --fallback-model 'Models to try, in order, when the model is overloaded (comma-separated or repeated)'
            cand --max-budget-usd 'End the turn once the session has cost this much, in US dollars'
            cand --system-prompt 'Replace the system prompt'
            cand --append-system-prompt 'Add to the system prompt'
            cand --add-dir 'Give the tools access to another directory (repeatable)'
            cand --cwd 'Working directory for the session'
            cand -r 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)'
            cand --resume 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)'
            cand --mcp-config 'MCP server configuration: JSON text or a file (repeatable)'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -c 'Continue the most recent session of this directory'
            cand --continue 'Continue the most recent session of this directory'
            cand -v 'Show the CLI''s own stderr as it runs'
            cand --verbose 'Show the CLI''s own stderr as it runs'
            cand --trust-workspace 'Load this folder''s project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions'= {
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List sessions, newest first (this directory''s, or --all)'
            cand inspect 'Show a session''s conversation as the CLI would resume it'
            cand show 'Show a session''s conversation as the CLI would resume it'
            cand search 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first'
            cand export 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)'
            cand usage 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block'
            cand resume 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)'
            cand fork 'Copy a session into a new one with fresh ids; prints the new id'
            cand rename 'Set a session''s title (appends the CLI''s custom-title line)'
            cand tag 'Tag a session (appends the CLI''s tag line)'
            cand delete 'Delete a session''s transcript (asks first, unless --yes)'
            cand archive 'Copy every transcript into claudio''s archive (compressed, only what changed), where the CLI''s cleanup does not reach it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;sessions;list'= {
            cand --cwd 'List this directory''s sessions (and its git worktrees'') instead of the current one'
            cand -n 'At most this many sessions (the newest)'
            cand --limit 'At most this many sessions (the newest)'
            cand --since 'Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)'
            cand -o 'text (a table), json (one array) or ndjson (one session a line)'
            cand --output 'text (a table), json (one array) or ndjson (one session a line)'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -a 'Every project''s sessions, not only this directory''s'
            cand --all 'Every project''s sessions, not only this directory''s'
            cand -l 'With each session''s usage: in the table, total tokens and the estimated cost; in JSON, tokens, models, prompts, API requests and the estimate. Reads whole transcripts, so it is slower'
            cand --long 'With each session''s usage: in the table, total tokens and the estimated cost; in JSON, tokens, models, prompts, API requests and the estimate. Reads whole transcripts, so it is slower'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;inspect'= {
            cand -o 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)'
            cand --output 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)'
            cand --grep 'Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --subagents 'Also the session''s sub-agent runs, each after the conversation'
            cand -e 'The --grep pattern is a regular expression (Rust regex syntax)'
            cand --regex 'The --grep pattern is a regular expression (Rust regex syntax)'
            cand -s 'Case always matters to --grep'
            cand --case-sensitive 'Case always matters to --grep'
            cand -i 'Case never matters to --grep'
            cand --ignore-case 'Case never matters to --grep'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;show'= {
            cand -o 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)'
            cand --output 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)'
            cand --grep 'Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --subagents 'Also the session''s sub-agent runs, each after the conversation'
            cand -e 'The --grep pattern is a regular expression (Rust regex syntax)'
            cand --regex 'The --grep pattern is a regular expression (Rust regex syntax)'
            cand -s 'Case always matters to --grep'
            cand --case-sensitive 'Case always matters to --grep'
            cand -i 'Case never matters to --grep'
            cand --ignore-case 'Case never matters to --grep'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;search'= {
            cand --cwd 'This directory''s sessions (and its git worktrees'') instead of the current one'
            cand --since 'Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)'
            cand -n 'At most this many sessions'
            cand --limit 'At most this many sessions'
            cand --hits 'At most this many hits per session'
            cand -o 'text, json (one array of sessions) or ndjson (a session a line, as found)'
            cand --output 'text, json (one array of sessions) or ndjson (a session a line, as found)'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -a 'Search every project''s sessions, not only this directory''s'
            cand --all 'Search every project''s sessions, not only this directory''s'
            cand -e 'The pattern is a regular expression (Rust regex syntax)'
            cand --regex 'The pattern is a regular expression (Rust regex syntax)'
            cand -s 'Case always matters'
            cand --case-sensitive 'Case always matters'
            cand -i 'Case never matters'
            cand --ignore-case 'Case never matters'
            cand --tools 'Also search tool inputs and outputs'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;export'= {
            cand -o 'md, html or json [default: md]'
            cand --output 'md, html or json [default: md]'
            cand -O 'Write to this file (else stdout)'
            cand --output-file 'Write to this file (else stdout)'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --full 'Keep every line of tool output (else the first 40 of each)'
            cand --thinking 'Include the model''s thinking'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'claudio;sessions;usage'= {
            cand --cwd 'This directory''s sessions (and its git worktrees'') instead of the current one'
            cand --by 'Rows by day, month, model, project, session, or 5-hour billing window (block; the open one with its burn rate and projection)'
            cand --since 'Only API messages since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)'
            cand -n 'Count only this many sessions (the newest)'
            cand --limit 'Count only this many sessions (the newest)'
            cand -o 'text (a table), json (one object) or ndjson (a row a line, then the total)'
            cand --output 'text (a table), json (one object) or ndjson (a row a line, then the total)'
            cand --until 'Only API messages before then: a span back from now (12h, 7d), a date (2026-11-30: through that day) or a time'
            cand --timezone 'Days, weeks, months and windows in this time zone (an IANA name: Europe/Paris, America/New_York, UTC) instead of TZ''s; --since and --until dates are its midnights'
            cand --order 'Rows oldest first (asc) or newest first (desc); by model, project or session the same order, reversed'
            cand --start-of-week 'With --by week: the day weeks start on'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -a 'Every project''s sessions, not only this directory''s'
            cand --all 'Every project''s sessions, not only this directory''s'
            cand --breakdown 'Under each row, its tokens and cost by model (-o json always has them: modelBreakdowns)'
            cand --no-cost 'Leave the cost estimate out'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'claudio;sessions;resume'= {
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --tui 'The claude TUI instead of claudio''s chat, its permission requests answerable from `claudio deck` (no settings file changed)'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;fork'= {
            cand --at 'Copy only up to this message (its uuid or a unique prefix; see `show --json`)'
            cand --title 'The fork''s title (else the original''s, marked "(fork)")'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;rename'= {
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;tag'= {
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --clear 'Remove the tag'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;delete'= {
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -y 'Don''t ask for confirmation'
            cand --yes 'Don''t ask for confirmation'
            cand --archived-too 'Also delete the session''s copies in claudio''s archive (with their sub-agents), in the same step: what a leaked secret needs'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;archive'= {
            cand -o 'text, or json (the summary as one object on one line; ndjson is the same)'
            cand --output 'text, or json (the summary as one object on one line; ndjson is the same)'
            cand --config-dir 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --no-archive 'Leave out the sessions only claudio''s archive holds'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;sessions;help'= {
            cand list 'List sessions, newest first (this directory''s, or --all)'
            cand inspect 'Show a session''s conversation as the CLI would resume it'
            cand search 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first'
            cand export 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)'
            cand usage 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block'
            cand resume 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)'
            cand fork 'Copy a session into a new one with fresh ids; prints the new id'
            cand rename 'Set a session''s title (appends the CLI''s custom-title line)'
            cand tag 'Tag a session (appends the CLI''s tag line)'
            cand delete 'Delete a session''s transcript (asks first, unless --yes)'
            cand archive 'Copy every transcript into claudio''s archive (compressed, only what changed), where the CLI''s cleanup does not reach it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;sessions;help;list'= {
        }
        &'claudio;sessions;help;inspect'= {
        }
        &'claudio;sessions;help;search'= {
        }
        &'claudio;sessions;help;export'= {
        }
        &'claudio;sessions;help;usage'= {
        }
        &'claudio;sessions;help;resume'= {
        }
        &'claudio;sessions;help;fork'= {
        }
        &'claudio;sessions;help;rename'= {
        }
        &'claudio;sessions;help;tag'= {
        }
        &'claudio;sessions;help;delete'= {
        }
        &'claudio;sessions;help;archive'= {
        }
        &'claudio;sessions;help;help'= {
        }
        &'claudio;tui'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;deck'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --json 'Print one snapshot of every running session as JSON (and the requests a running deck holds), and exit'
            cand --watch 'Print what changes as it changes, one JSON object a line (sessions appearing, changing, going; requests pending, answered)'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand hooks 'Install, check or remove the PermissionRequest hook in Claude Code''s settings'
            cand hook 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;deck;hooks'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand install 'Add the hook (the change is shown and asked about first)'
            cand status 'Say whether the hook is installed'
            cand remove 'Take the hook out again'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;deck;hooks;install'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -y 'Write without asking (for scripts)'
            cand --yes 'Write without asking (for scripts)'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;deck;hooks;status'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;deck;hooks;remove'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -y 'Write without asking (for scripts)'
            cand --yes 'Write without asking (for scripts)'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;deck;hooks;help'= {
            cand install 'Add the hook (the change is shown and asked about first)'
            cand status 'Say whether the hook is installed'
            cand remove 'Take the hook out again'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;deck;hooks;help;install'= {
        }
        &'claudio;deck;hooks;help;status'= {
        }
        &'claudio;deck;hooks;help;remove'= {
        }
        &'claudio;deck;hooks;help;help'= {
        }
        &'claudio;deck;hook'= {
            cand --wait 'The most seconds to wait for the deck''s answer'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;deck;help'= {
            cand hooks 'Install, check or remove the PermissionRequest hook in Claude Code''s settings'
            cand hook 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;deck;help;hooks'= {
            cand install 'Add the hook (the change is shown and asked about first)'
            cand status 'Say whether the hook is installed'
            cand remove 'Take the hook out again'
        }
        &'claudio;deck;help;hooks;install'= {
        }
        &'claudio;deck;help;hooks;status'= {
        }
        &'claudio;deck;help;hooks;remove'= {
        }
        &'claudio;deck;help;hook'= {
        }
        &'claudio;deck;help;help'= {
        }
        &'claudio;doctor'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand -v 'Say more: every place the CLI was looked for'
            cand --verbose 'Say more: every place the CLI was looked for'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;config'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand path 'Print the path of the config file in use'
            cand show 'Print the settings the config file gives'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;config;path'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;config;show'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;config;help'= {
            cand path 'Print the path of the config file in use'
            cand show 'Print the settings the config file gives'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;config;help;path'= {
        }
        &'claudio;config;help;show'= {
        }
        &'claudio;config;help;help'= {
        }
        &'claudio;notify'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand test 'Send a test notice through every way set, and say what failed'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;notify;test'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;notify;help'= {
            cand test 'Send a test notice through every way set, and say what failed'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;notify;help;test'= {
        }
        &'claudio;notify;help;help'= {
        }
        &'claudio;statusline'= {
            cand --format 'The line''s template: placeholders in braces (listed below)'
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;completions'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;man'= {
            cand --cli-path 'Path of the `claude` executable'
            cand --color 'When to use colors [default: auto]'
            cand --debug 'Log claudio''s own decisions on stderr (never secrets)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'claudio;help'= {
            cand ask 'Ask once and print the answer (made for shell pipelines)'
            cand sessions 'List, show, resume, fork, rename, tag and delete sessions'
            cand tui 'A new session in the claude TUI, answerable from `claudio deck`'
            cand deck 'Every running Claude Code session, and its permission requests answered from one place'
            cand doctor 'Check that everything claudio needs is in place'
            cand config 'Show the config file''s path or its settings'
            cand notify 'Notices when a session needs you: `claudio notify test` sends one through every way the config file''s `[notify]` table sets'
            cand statusline 'Print one status line for the claude TUI (its `statusLine` command)'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'claudio;help;ask'= {
        }
        &'claudio;help;sessions'= {
            cand list 'List sessions, newest first (this directory''s, or --all)'
            cand inspect 'Show a session''s conversation as the CLI would resume it'
            cand search 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first'
            cand export 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)'
            cand usage 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block'
            cand resume 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)'
            cand fork 'Copy a session into a new one with fresh ids; prints the new id'
            cand rename 'Set a session''s title (appends the CLI''s custom-title line)'
            cand tag 'Tag a session (appends the CLI''s tag line)'
            cand delete 'Delete a session''s transcript (asks first, unless --yes)'
            cand archive 'Copy every transcript into claudio''s archive (compressed, only what changed), where the CLI''s cleanup does not reach it'
        }
        &'claudio;help;sessions;list'= {
        }
        &'claudio;help;sessions;inspect'= {
        }
        &'claudio;help;sessions;search'= {
        }
        &'claudio;help;sessions;export'= {
        }
        &'claudio;help;sessions;usage'= {
        }
        &'claudio;help;sessions;resume'= {
        }
        &'claudio;help;sessions;fork'= {
        }
        &'claudio;help;sessions;rename'= {
        }
        &'claudio;help;sessions;tag'= {
        }
        &'claudio;help;sessions;delete'= {
        }
        &'claudio;help;sessions;archive'= {
        }
        &'claudio;help;tui'= {
        }
        &'claudio;help;deck'= {
            cand hooks 'Install, check or remove the PermissionRequest hook in Claude Code''s settings'
            cand hook 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)'
        }
        &'claudio;help;deck;hooks'= {
            cand install 'Add the hook (the change is shown and asked about first)'
            cand status 'Say whether the hook is installed'
            cand remove 'Take the hook out again'
        }
        &'claudio;help;deck;hooks;install'= {
        }
        &'claudio;help;deck;hooks;status'= {
        }
        &'claudio;help;deck;hooks;remove'= {
        }
        &'claudio;help;deck;hook'= {
        }
        &'claudio;help;doctor'= {
        }
        &'claudio;help;config'= {
            cand path 'Print the path of the config file in use'
            cand show 'Print the settings the config file gives'
        }
        &'claudio;help;config;path'= {
        }
        &'claudio;help;config;show'= {
        }
        &'claudio;help;notify'= {
            cand test 'Send a test notice through every way set, and say what failed'
        }
        &'claudio;help;notify;test'= {
        }
        &'claudio;help;statusline'= {
        }
        &'claudio;help;completions'= {
        }
        &'claudio;help;man'= {
        }
        &'claudio;help;help'= {
        }
    ]
    $completions[$command]
}
