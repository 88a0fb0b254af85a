package targets

import (
	"context"

	"github.com/gmark/gmark/submitter"
)

// dryrunTarget records every submission and runs nothing; it takes no
// settings.
var dryrunTarget = Spec{
	Name: "dryrun",
	Doc:  "records submissions, runs nothing",
	make: func(context.Context, maker) (submitter.Target, any, error) {
		return submitter.NewDryRun(), map[string]any{}, nil
	},
}
