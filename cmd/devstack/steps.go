package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// A step is one stage of make dev's start-up with its own time limit: its clock starts when
// the step starts, so a slow build never spends the servers' or the seed's time.
type step struct {
	name  string
	bound time.Duration
	run   func(ctx context.Context) error
}

// runSteps runs the steps in order under ctx (Ctrl-C), each bounded by its own limit, and
// reports each one's duration to w. A step that fails says which step it was and, when its
// limit passed, that it did.
func runSteps(ctx context.Context, w io.Writer, steps []step) error {
	for _, s := range steps {
		began := time.Now()
		sctx, cancel := context.WithTimeout(ctx, s.bound)
		err := s.run(sctx)
		late := errors.Is(sctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return fmt.Errorf("%s: interrupted: %w", s.name, err)
		case err != nil && late:
			return fmt.Errorf("%s: not done within its limit of %s: %w", s.name, s.bound, err)
		case err != nil:
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(w, "%s: done in %.1f s\n", s.name, time.Since(began).Seconds())
	}
	return nil
}

// envDuration reads a duration such as "20m" from the environment.
func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a duration such as 20m, not %q", name, v)
	}
	return d, nil
}
