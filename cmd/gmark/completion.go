package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// bashCompletion asks gmark itself for the candidates at the cursor (urfave/cli's
// hidden --generate-bash-completion flag) and falls back to file names, which
// is what most gmark arguments are.
const bashCompletion = `# gmark bash completion: eval "$(gmark completion bash)"
_gmark_complete() {
	local cur="${COMP_WORDS[COMP_CWORD]}"
	local IFS=$'\n'
	local candidates words=("${COMP_WORDS[@]:0:COMP_CWORD}")
	# gmark suggests flags when the word before its completion flag is a flag.
	case "${cur}" in -*) words+=("${cur}") ;; esac
	candidates=$("${words[@]}" --generate-bash-completion 2>/dev/null)
	COMPREPLY=($(compgen -W "${candidates}" -- "${cur}"))
	if [ ${#COMPREPLY[@]} -eq 0 ]; then
		COMPREPLY=($(compgen -f -- "${cur}"))
	fi
}
complete -o filenames -F _gmark_complete gmark
`

const zshCompletion = `# gmark zsh completion: eval "$(gmark completion zsh)"
autoload -U +X bashcompinit && bashcompinit
` + bashCompletion

func init() {
	commands = append(commands, &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "Load completion in the current shell with, for example:\n" +
			"  eval \"$(gmark completion bash)\"\n" +
			"or install it: gmark completion bash > /etc/bash_completion.d/gmark",
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(c.App.Writer, s)
			default:
				return usageErrorf("completion takes one shell: bash, zsh or fish")
			}
			return nil
		},
	})
}
