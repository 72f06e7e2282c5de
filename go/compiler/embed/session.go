package embed

import (
	"sync"

	"github.com/gree-ml/gree/go/compiler/cli"
)

// Session holds the flags its invocations compile with; each session's
// flags are its own.
type Session struct {
	mu    sync.Mutex
	flags []string
}

// NewSession returns a session with iree-compile's default flags.
func NewSession() *Session { return &Session{} }

// SetFlags adds flags ("--iree-input-type=tosa"); later values of an option
// replace earlier ones. On an error (an unknown flag, a bad spelling, a
// tool action such as --help) no flag of args is added.
func (s *Session) SetFlags(args []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := append(append([]string(nil), s.flags...), args...)
	if err := cli.CheckSessionFlags(next); err != nil {
		return err
	}
	s.flags = next
	return nil
}

// Flags returns the session's options as "--name=value": all of them, or
// only those set when nonDefaultOnly.
func (s *Session) Flags(nonDefaultOnly bool) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cli.SessionFlagList(s.flags, nonDefaultOnly)
}

// args returns a copy of the flags as set.
func (s *Session) args() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.flags...)
}

// Invocation returns a new invocation on the session.
func (s *Session) Invocation() *Invocation {
	return &Invocation{session: s, verify: true}
}
