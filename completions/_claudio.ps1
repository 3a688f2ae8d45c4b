
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'claudio' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'claudio'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'claudio' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model for the session (e.g. sonnet, opus, or a full model name)')
            [CompletionResult]::new('--permission-mode', '--permission-mode', [CompletionResultType]::ParameterName, 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto')
            [CompletionResult]::new('--allowed-tools', '--allowed-tools', [CompletionResultType]::ParameterName, 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"')
            [CompletionResult]::new('--disallowed-tools', '--disallowed-tools', [CompletionResultType]::ParameterName, 'Tools never allowed (comma-separated or repeated)')
            [CompletionResult]::new('--max-turns', '--max-turns', [CompletionResultType]::ParameterName, 'Stop after this many agent turns')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'How hard the model thinks')
            [CompletionResult]::new('--fallback-model', '--fallback-model', [CompletionResultType]::ParameterName, 'Models to try, in order, when the model is overloaded (comma-separated or repeated)')
            [CompletionResult]::new('--max-budget-usd', '--max-budget-usd', [CompletionResultType]::ParameterName, 'End the turn once the session has cost this much, in US dollars')
            [CompletionResult]::new('--system-prompt', '--system-prompt', [CompletionResultType]::ParameterName, 'Replace the system prompt')
            [CompletionResult]::new('--append-system-prompt', '--append-system-prompt', [CompletionResultType]::ParameterName, 'Add to the system prompt')
            [CompletionResult]::new('--add-dir', '--add-dir', [CompletionResultType]::ParameterName, 'Give the tools access to another directory (repeatable)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory for the session')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'MCP server configuration: JSON text or a file (repeatable)')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Continue the most recent session of this directory')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'Continue the most recent session of this directory')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the CLI''s own stderr as it runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the CLI''s own stderr as it runs')
            [CompletionResult]::new('--trust-workspace', '--trust-workspace', [CompletionResultType]::ParameterName, 'Load this folder''s project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI')
            [CompletionResult]::new('--hide-thinking', '--hide-thinking', [CompletionResultType]::ParameterName, 'Don''t show the model''s thinking in the chat')
            [CompletionResult]::new('--vi', '--vi', [CompletionResultType]::ParameterName, 'Edit the prompt with vi keys (`edit-mode = "vi"` in the config file)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('ask', 'ask', [CompletionResultType]::ParameterValue, 'Ask once and print the answer (made for shell pipelines)')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List, show, resume, fork, rename, tag and delete sessions')
            [CompletionResult]::new('tui', 'tui', [CompletionResultType]::ParameterValue, 'A new session in the claude TUI, answerable from `claudio deck`')
            [CompletionResult]::new('deck', 'deck', [CompletionResultType]::ParameterValue, 'Every running Claude Code session, and its permission requests answered from one place')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check that everything claudio needs is in place')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the config file''s path or its settings')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Notices when a session needs you: `claudio notify test` sends one through every way the config file''s `[notify]` table sets')
            [CompletionResult]::new('statusline', 'statusline', [CompletionResultType]::ParameterValue, 'Print one status line for the claude TUI (its `statusLine` command)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;ask' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'What to print: the answer text, the final result as JSON, or every CLI message as NDJSON (stream-json, also spelled ndjson)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'What to print: the answer text, the final result as JSON, or every CLI message as NDJSON (stream-json, also spelled ndjson)')
            [CompletionResult]::new('--json-schema', '--json-schema', [CompletionResultType]::ParameterName, 'Answer in this shape: a JSON Schema, inline or `@FILE`. With `-o text` the answer printed is the JSON object the model returned')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Send this image (png, jpeg, gif or webp) beside the prompt; repeat for more. An image piped on stdin is sent as an image too')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model for the session (e.g. sonnet, opus, or a full model name)')
            [CompletionResult]::new('--permission-mode', '--permission-mode', [CompletionResultType]::ParameterName, 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto')
            [CompletionResult]::new('--allowed-tools', '--allowed-tools', [CompletionResultType]::ParameterName, 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"')
            [CompletionResult]::new('--disallowed-tools', '--disallowed-tools', [CompletionResultType]::ParameterName, 'Tools never allowed (comma-separated or repeated)')
            [CompletionResult]::new('--max-turns', '--max-turns', [CompletionResultType]::ParameterName, 'Stop after this many agent turns')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'How hard the model thinks')
            [CompletionResult]::new('--fallback-model', '--fallback-model', [CompletionResultType]::ParameterName, 'Models to try, in order, when the model is overloaded (comma-separated or repeated)')
            [CompletionResult]::new('--max-budget-usd', '--max-budget-usd', [CompletionResultType]::ParameterName, 'End the turn once the session has cost this much, in US dollars')
            [CompletionResult]::new('--system-prompt', '--system-prompt', [CompletionResultType]::ParameterName, 'Replace the system prompt')
            [CompletionResult]::new('--append-system-prompt', '--append-system-prompt', [CompletionResultType]::ParameterName, 'Add to the system prompt')
            [CompletionResult]::new('--add-dir', '--add-dir', [CompletionResultType]::ParameterName, 'Give the tools access to another directory (repeatable)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory for the session')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Resume the session with this id (an id prefix works); with no id, pick one from a list (this directory''s sessions; Ctrl-A: every project)')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'MCP server configuration: JSON text or a file (repeatable)')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Continue the most recent session of this directory')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'Continue the most recent session of this directory')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the CLI''s own stderr as it runs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the CLI''s own stderr as it runs')
            [CompletionResult]::new('--trust-workspace', '--trust-workspace', [CompletionResultType]::ParameterName, 'Load this folder''s project settings (hooks, MCP servers, statusLine) without asking, for this run only, though it is not trusted: for scripts and CI')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions' {
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first (this directory''s, or --all)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show a session''s conversation as the CLI would resume it')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a session''s conversation as the CLI would resume it')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Copy a session into a new one with fresh ids; prints the new id')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Set a session''s title (appends the CLI''s custom-title line)')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Tag a session (appends the CLI''s tag line)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a session''s transcript (asks first, unless --yes)')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Copy every transcript into claudio''s archive (compressed, only what changed), where the CLI''s cleanup does not reach it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;sessions;list' {
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'List this directory''s sessions (and its git worktrees'') instead of the current one')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most this many sessions (the newest)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many sessions (the newest)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'text (a table), json (one array) or ndjson (one session a line)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'text (a table), json (one array) or ndjson (one session a line)')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this directory''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this directory''s')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'With each session''s usage: in the table, total tokens and the estimated cost; in JSON, tokens, models, prompts, API requests and the estimate. Reads whole transcripts, so it is slower')
            [CompletionResult]::new('--long', '--long', [CompletionResultType]::ParameterName, 'With each session''s usage: in the table, total tokens and the estimated cost; in JSON, tokens, models, prompts, API requests and the estimate. Reads whole transcripts, so it is slower')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;inspect' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--subagents', '--subagents', [CompletionResultType]::ParameterName, 'Also the session''s sub-agent runs, each after the conversation')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'The --grep pattern is a regular expression (Rust regex syntax)')
            [CompletionResult]::new('--regex', '--regex', [CompletionResultType]::ParameterName, 'The --grep pattern is a regular expression (Rust regex syntax)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Case always matters to --grep')
            [CompletionResult]::new('--case-sensitive', '--case-sensitive', [CompletionResultType]::ParameterName, 'Case always matters to --grep')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Case never matters to --grep')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Case never matters to --grep')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them)')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Jump to the lines holding this text (smart case): on a terminal the pager opens at the first, with every one marked; in a pipe only those lines are printed, each after who said it')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--subagents', '--subagents', [CompletionResultType]::ParameterName, 'Also the session''s sub-agent runs, each after the conversation')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'The --grep pattern is a regular expression (Rust regex syntax)')
            [CompletionResult]::new('--regex', '--regex', [CompletionResultType]::ParameterName, 'The --grep pattern is a regular expression (Rust regex syntax)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Case always matters to --grep')
            [CompletionResult]::new('--case-sensitive', '--case-sensitive', [CompletionResultType]::ParameterName, 'Case always matters to --grep')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Case never matters to --grep')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Case never matters to --grep')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;search' {
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'This directory''s sessions (and its git worktrees'') instead of the current one')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most this many sessions')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many sessions')
            [CompletionResult]::new('--hits', '--hits', [CompletionResultType]::ParameterName, 'At most this many hits per session')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'text, json (one array of sessions) or ndjson (a session a line, as found)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'text, json (one array of sessions) or ndjson (a session a line, as found)')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Search every project''s sessions, not only this directory''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Search every project''s sessions, not only this directory''s')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'The pattern is a regular expression (Rust regex syntax)')
            [CompletionResult]::new('--regex', '--regex', [CompletionResultType]::ParameterName, 'The pattern is a regular expression (Rust regex syntax)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Case always matters')
            [CompletionResult]::new('--case-sensitive', '--case-sensitive', [CompletionResultType]::ParameterName, 'Case always matters')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Case never matters')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Case never matters')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Also search tool inputs and outputs')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;export' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'md, html or json [default: md]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'md, html or json [default: md]')
            [CompletionResult]::new('-O', '-O ', [CompletionResultType]::ParameterName, 'Write to this file (else stdout)')
            [CompletionResult]::new('--output-file', '--output-file', [CompletionResultType]::ParameterName, 'Write to this file (else stdout)')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Keep every line of tool output (else the first 40 of each)')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Include the model''s thinking')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'claudio;sessions;usage' {
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'This directory''s sessions (and its git worktrees'') instead of the current one')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Rows by day, month, model, project, session, or 5-hour billing window (block; the open one with its burn rate and projection)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only API messages since then: 30m, 12h, 7d, 2w, or a date (2026-11-01)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Count only this many sessions (the newest)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Count only this many sessions (the newest)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'text (a table), json (one object) or ndjson (a row a line, then the total)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'text (a table), json (one object) or ndjson (a row a line, then the total)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only API messages before then: a span back from now (12h, 7d), a date (2026-11-30: through that day) or a time')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'Days, weeks, months and windows in this time zone (an IANA name: Europe/Paris, America/New_York, UTC) instead of TZ''s; --since and --until dates are its midnights')
            [CompletionResult]::new('--order', '--order', [CompletionResultType]::ParameterName, 'Rows oldest first (asc) or newest first (desc); by model, project or session the same order, reversed')
            [CompletionResult]::new('--start-of-week', '--start-of-week', [CompletionResultType]::ParameterName, 'With --by week: the day weeks start on')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this directory''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this directory''s')
            [CompletionResult]::new('--breakdown', '--breakdown', [CompletionResultType]::ParameterName, 'Under each row, its tokens and cost by model (-o json always has them: modelBreakdowns)')
            [CompletionResult]::new('--no-cost', '--no-cost', [CompletionResultType]::ParameterName, 'Leave the cost estimate out')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'claudio;sessions;resume' {
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--tui', '--tui', [CompletionResultType]::ParameterName, 'The claude TUI instead of claudio''s chat, its permission requests answerable from `claudio deck` (no settings file changed)')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;fork' {
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Copy only up to this message (its uuid or a unique prefix; see `show --json`)')
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'The fork''s title (else the original''s, marked "(fork)")')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;rename' {
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;tag' {
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--clear', '--clear', [CompletionResultType]::ParameterName, 'Remove the tag')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;delete' {
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Don''t ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Don''t ask for confirmation')
            [CompletionResult]::new('--archived-too', '--archived-too', [CompletionResultType]::ParameterName, 'Also delete the session''s copies in claudio''s archive (with their sub-agents), in the same step: what a leaked secret needs')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;archive' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'text, or json (the summary as one object on one line; ndjson is the same)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'text, or json (the summary as one object on one line; ndjson is the same)')
            [CompletionResult]::new('--config-dir', '--config-dir', [CompletionResultType]::ParameterName, 'The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Leave out the sessions only claudio''s archive holds')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;sessions;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first (this directory''s, or --all)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show a session''s conversation as the CLI would resume it')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Copy a session into a new one with fresh ids; prints the new id')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Set a session''s title (appends the CLI''s custom-title line)')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Tag a session (appends the CLI''s tag line)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a session''s transcript (asks first, unless --yes)')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Copy every transcript into claudio''s archive (compressed, only what changed), where the CLI''s cleanup does not reach it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;sessions;help;list' {
            break
        }
        'claudio;sessions;help;inspect' {
            break
        }
        'claudio;sessions;help;search' {
            break
        }
        'claudio;sessions;help;export' {
            break
        }
        'claudio;sessions;help;usage' {
            break
        }
        'claudio;sessions;help;resume' {
            break
        }
        'claudio;sessions;help;fork' {
            break
        }
        'claudio;sessions;help;rename' {
            break
        }
        'claudio;sessions;help;tag' {
            break
        }
        'claudio;sessions;help;delete' {
            break
        }
        'claudio;sessions;help;archive' {
            break
        }
        'claudio;sessions;help;help' {
            break
        }
        'claudio;tui' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;deck' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one snapshot of every running session as JSON (and the requests a running deck holds), and exit')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Print what changes as it changes, one JSON object a line (sessions appearing, changing, going; requests pending, answered)')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install, check or remove the PermissionRequest hook in Claude Code''s settings')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;deck;hooks' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add the hook (the change is shown and asked about first)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Say whether the hook is installed')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Take the hook out again')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;deck;hooks;install' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Write without asking (for scripts)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Write without asking (for scripts)')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;deck;hooks;status' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;deck;hooks;remove' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Write without asking (for scripts)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Write without asking (for scripts)')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;deck;hooks;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add the hook (the change is shown and asked about first)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Say whether the hook is installed')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Take the hook out again')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;deck;hooks;help;install' {
            break
        }
        'claudio;deck;hooks;help;status' {
            break
        }
        'claudio;deck;hooks;help;remove' {
            break
        }
        'claudio;deck;hooks;help;help' {
            break
        }
        'claudio;deck;hook' {
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'The most seconds to wait for the deck''s answer')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;deck;help' {
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install, check or remove the PermissionRequest hook in Claude Code''s settings')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;deck;help;hooks' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add the hook (the change is shown and asked about first)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Say whether the hook is installed')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Take the hook out again')
            break
        }
        'claudio;deck;help;hooks;install' {
            break
        }
        'claudio;deck;help;hooks;status' {
            break
        }
        'claudio;deck;help;hooks;remove' {
            break
        }
        'claudio;deck;help;hook' {
            break
        }
        'claudio;deck;help;help' {
            break
        }
        'claudio;doctor' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more: every place the CLI was looked for')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more: every place the CLI was looked for')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;config' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of the config file in use')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the settings the config file gives')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;config;path' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;config;show' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;config;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of the config file in use')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the settings the config file gives')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;config;help;path' {
            break
        }
        'claudio;config;help;show' {
            break
        }
        'claudio;config;help;help' {
            break
        }
        'claudio;notify' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a test notice through every way set, and say what failed')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;notify;test' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;notify;help' {
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a test notice through every way set, and say what failed')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;notify;help;test' {
            break
        }
        'claudio;notify;help;help' {
            break
        }
        'claudio;statusline' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'The line''s template: placeholders in braces (listed below)')
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;completions' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;man' {
            [CompletionResult]::new('--cli-path', '--cli-path', [CompletionResultType]::ParameterName, 'Path of the `claude` executable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors [default: auto]')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Log claudio''s own decisions on stderr (never secrets)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'claudio;help' {
            [CompletionResult]::new('ask', 'ask', [CompletionResultType]::ParameterValue, 'Ask once and print the answer (made for shell pipelines)')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List, show, resume, fork, rename, tag and delete sessions')
            [CompletionResult]::new('tui', 'tui', [CompletionResultType]::ParameterValue, 'A new session in the claude TUI, answerable from `claudio deck`')
            [CompletionResult]::new('deck', 'deck', [CompletionResultType]::ParameterValue, 'Every running Claude Code session, and its permission requests answered from one place')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check that everything claudio needs is in place')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the config file''s path or its settings')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Notices when a session needs you: `claudio notify test` sends one through every way the config file''s `[notify]` table sets')
            [CompletionResult]::new('statusline', 'statusline', [CompletionResultType]::ParameterValue, 'Print one status line for the claude TUI (its `statusLine` command)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'claudio;help;ask' {
            break
        }
        'claudio;help;sessions' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first (this directory''s, or --all)')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show a session''s conversation as the CLI would resume it')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search inside past conversations: prompts and answers (--tools: tool calls too), newest sessions first')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE)')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens and estimated cost, by day, month, model, project, session or 5-hour block')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Open the chat on a session, in the directory it was recorded in (--tui: the claude TUI, its requests answerable from `claudio deck`)')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Copy a session into a new one with fresh ids; prints the new id')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Set a session''s title (appends the CLI''s custom-title line)')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Tag a session (appends the CLI''s tag line)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a session''s transcript (asks first, unless --yes)')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Copy every transcript into claudio''s archive (compressed, only what changed), where the CLI''s cleanup does not reach it')
            break
        }
        'claudio;help;sessions;list' {
            break
        }
        'claudio;help;sessions;inspect' {
            break
        }
        'claudio;help;sessions;search' {
            break
        }
        'claudio;help;sessions;export' {
            break
        }
        'claudio;help;sessions;usage' {
            break
        }
        'claudio;help;sessions;resume' {
            break
        }
        'claudio;help;sessions;fork' {
            break
        }
        'claudio;help;sessions;rename' {
            break
        }
        'claudio;help;sessions;tag' {
            break
        }
        'claudio;help;sessions;delete' {
            break
        }
        'claudio;help;sessions;archive' {
            break
        }
        'claudio;help;tui' {
            break
        }
        'claudio;help;deck' {
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install, check or remove the PermissionRequest hook in Claude Code''s settings')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin)')
            break
        }
        'claudio;help;deck;hooks' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add the hook (the change is shown and asked about first)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Say whether the hook is installed')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Take the hook out again')
            break
        }
        'claudio;help;deck;hooks;install' {
            break
        }
        'claudio;help;deck;hooks;status' {
            break
        }
        'claudio;help;deck;hooks;remove' {
            break
        }
        'claudio;help;deck;hook' {
            break
        }
        'claudio;help;doctor' {
            break
        }
        'claudio;help;config' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of the config file in use')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the settings the config file gives')
            break
        }
        'claudio;help;config;path' {
            break
        }
        'claudio;help;config;show' {
            break
        }
        'claudio;help;notify' {
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a test notice through every way set, and say what failed')
            break
        }
        'claudio;help;notify;test' {
            break
        }
        'claudio;help;statusline' {
            break
        }
        'claudio;help;completions' {
            break
        }
        'claudio;help;man' {
            break
        }
        'claudio;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
