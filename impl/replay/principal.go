package replay

import (
	"fmt"
	"strings"
)

// Principal is the Unix identity handling this request, from current
// process and admission facts. It is synthesized for each request, never
// stored, never compacted, and recomputed on resume or mode switch: the
// projection takes it as an argument and no function here writes it back.
type Principal struct {
	Agent           string // the agent's name
	Borrowed        bool   // intentional borrowed-user mode (else dedicated resident)
	UID             int    // actual UID of the process
	Account         string // account name of UID
	ExpectedAccount string // the account this agent was admitted to (or borrows)
	Node            string // host the request is handled on
}

// Render is the system text for p. Drift (running under another account
// than expected) is stated, never hidden.
func (p Principal) Render() string {
	var b strings.Builder
	b.WriteString("[Runtime principal — current facts for this request, not history]\n")
	fmt.Fprintf(&b, "agent: %s\n", p.Agent)
	if p.Borrowed {
		b.WriteString("mode: borrowed user (intentional)\n")
	} else {
		b.WriteString("mode: dedicated resident\n")
	}
	fmt.Fprintf(&b, "actual: uid %d (%s)\n", p.UID, p.Account)
	fmt.Fprintf(&b, "expected account: %s\n", p.ExpectedAccount)
	fmt.Fprintf(&b, "node: %s\n", p.Node)
	if p.Account == p.ExpectedAccount {
		b.WriteString("drift: none")
	} else {
		fmt.Fprintf(&b, "drift: running as %s, not %s — do not assume %s's permissions", p.Account, p.ExpectedAccount, p.ExpectedAccount)
	}
	if p.Borrowed {
		fmt.Fprintf(&b, "\nwarning: you are borrowing %s's Unix authority; every action runs with %s's permissions", p.ExpectedAccount, p.ExpectedAccount)
	}
	return b.String()
}
