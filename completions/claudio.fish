# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_claudio_global_optspecs
    string join \n model= permission-mode= allowed-tools= disallowed-tools= max-turns= system-prompt= append-system-prompt= add-dir= cwd= r/resume= c/continue mcp-config= cli-path= v/verbose debug color= hide-thinking h/help V/version
end

function __fish_claudio_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_claudio_global_optspecs) -- $cmd 2>/dev/null
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

complete -c claudio -n "__fish_claudio_needs_command" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_needs_command" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_needs_command" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_needs_command" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_needs_command" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_needs_command" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_needs_command" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_needs_command" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_needs_command" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_needs_command" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_needs_command" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_needs_command" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_needs_command" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_needs_command" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_needs_command" -l hide-thinking -d 'Don\'t show the model\'s thinking in the chat'
complete -c claudio -n "__fish_claudio_needs_command" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_needs_command" -s V -l version -d 'Print version'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "ask" -d 'Ask once and print the answer (made for shell pipelines)'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "doctor" -d 'Check that everything claudio needs is in place'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "config" -d 'Show the config file\'s path or its settings'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c claudio -n "__fish_claudio_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s o -l output-format -d 'What to print: the answer text, the final result as JSON, or every CLI message as NDJSON' -r -f -a "text\t''
json\t''
stream-json\t''"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand ask" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -f -a "path" -d 'Print the path of the config file in use'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -f -a "show" -d 'Print the settings the config file gives'
complete -c claudio -n "__fish_claudio_using_subcommand config; and not __fish_seen_subcommand_from path show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the path of the config file in use'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the settings the config file gives'
complete -c claudio -n "__fish_claudio_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand completions" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand completions" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand completions" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand completions" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand completions" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand man" -l model -d 'Model for the session (e.g. sonnet, opus, or a full model name)' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l permission-mode -d 'Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l allowed-tools -d 'Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)"' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l disallowed-tools -d 'Tools never allowed (comma-separated or repeated)' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l max-turns -d 'Stop after this many agent turns' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l system-prompt -d 'Replace the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l append-system-prompt -d 'Add to the system prompt' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l add-dir -d 'Give the tools access to another directory (repeatable)' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand man" -l cwd -d 'Working directory for the session' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand man" -s r -l resume -d 'Resume the session with this id' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l mcp-config -d 'MCP server configuration: JSON text or a file (repeatable)' -r
complete -c claudio -n "__fish_claudio_using_subcommand man" -l cli-path -d 'Path of the `claude` executable' -r -F
complete -c claudio -n "__fish_claudio_using_subcommand man" -l color -d 'When to use colors [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c claudio -n "__fish_claudio_using_subcommand man" -s c -l continue -d 'Continue the most recent session of this directory'
complete -c claudio -n "__fish_claudio_using_subcommand man" -s v -l verbose -d 'Show the CLI\'s own stderr as it runs'
complete -c claudio -n "__fish_claudio_using_subcommand man" -l debug -d 'Log claudio\'s own decisions on stderr (never secrets)'
complete -c claudio -n "__fish_claudio_using_subcommand man" -s h -l help -d 'Print help'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask doctor config completions man help" -f -a "ask" -d 'Ask once and print the answer (made for shell pipelines)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask doctor config completions man help" -f -a "doctor" -d 'Check that everything claudio needs is in place'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask doctor config completions man help" -f -a "config" -d 'Show the config file\'s path or its settings'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask doctor config completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask doctor config completions man help" -f -a "man" -d 'Print the man page (roff)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and not __fish_seen_subcommand_from ask doctor config completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the path of the config file in use'
complete -c claudio -n "__fish_claudio_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the settings the config file gives'
