package replay

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	"github.com/frameproof/frameproof/model/wire"
)

func TestSmoke(t *testing.T) {
	rec := Record(
		User("hi"),
		Asst(Thinking("hmm", "sig"), Text("running"), Call("c1", "bash", "cmd", "ls"), Call("c2", "read", "path", "a")),
		Result("c1", "bash", "a b", false),
		User("interject"),
		Result("c3", "grep", "orphan", true),
		AsstStop(pi.StopAborted, Call("c4", "bash")),
		Result("c4", "bash", "late", false),
		UserBlocks(Text("see"), Image("image/png", "AAAA")),
		Asst(Text("done")),
	)
	for _, w := range impl.Wires {
		for _, vision := range []bool{false, true} {
			tg := impl.Target{Wire: w, Provider: DefaultProvider, Model: DefaultModel, Vision: vision}
			body, err := impl.Project(rec, tg, impl.Options{Principal: &impl.Principal{Agent: "ani", UID: 1001, Account: "annie", ExpectedAccount: "annie", Node: "n1"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := wire.Validate(w, body, wire.Options{Vision: vision, Model: DefaultModel}); err != nil {
				t.Error(w, err)
			}
		}
	}
}
