package campaign_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/linz"
	"github.com/frameproof/frameproof/sim/trace"
	"github.com/frameproof/frameproof/sim/world"
)

// counterModel: "inc" returns the new value; an indefinite inc may or may
// not have happened.
var counterModel = (&porcupine.NondeterministicModel{
	Init: func() []any { return []any{0} },
	Step: func(state, input, output any) []any {
		s := state.(int)
		if linz.IsIndefinite(output) {
			return []any{s, s + 1}
		}
		if output.(int) == s+1 {
			return []any{s + 1}
		}
		return nil
	},
}).ToModel()

// Example shows the shape of a scenario: a world driven by the campaign's
// choice source, a server process that crashes and restarts, clients whose
// operations go to a linz recorder, and a verdict with the trace hash.
func Example() {
	scenario := func(src choice.Source) campaign.Result {
		w := world.New(src, world.Options{Trace: trace.NewHashOnly()})
		rec := linz.NewRecorder(w.Step)
		durable := 0 // the "disk": survives crashes
		srv := w.NewProcess("counter")
		err := w.Run(func() {
			w.Go("crasher", func() {
				w.Sleep(time.Duration(w.Intn("crash-ms", 5)) * time.Millisecond)
				rec.Fault("crash "+srv.String(), "")
				srv = srv.Restart()
			})
			for c := range 2 {
				w.Go(fmt.Sprintf("client%d", c), func() {
					for range 3 {
						id := rec.Call(fmt.Sprintf("c%d", c), "inc")
						p := srv // the incarnation this request goes to
						reply := p.NewFuture("reply")
						var out int
						p.Go("handler", func() {
							w.Sleep(time.Millisecond) // the write
							durable++
							out = durable
							w.Yield() // the reply may be lost by a crash now
							reply.Resolve(nil)
						})
						if err := reply.Wait(); errors.Is(err, world.ErrCrashed) {
							rec.Cut(id, "crash of "+p.String())
							continue
						}
						_ = rec.Return(id, out)
					}
				})
			}
		})
		r := campaign.Result{TraceHash: w.Trace().Hash(), Steps: w.Step()}
		if err != nil {
			r.Failed, r.Kind, r.Message = true, campaign.KindWorld, err.Error()
		} else if res, _ := rec.Check(counterModel, time.Minute); res != porcupine.Ok {
			r.Failed, r.Kind, r.Message = true, campaign.KindLinearizability, string(res)
		}
		return r
	}
	sum, err := campaign.Campaign{Scenario: "counter", Run: scenario, Seeds: 50}.Execute()
	fmt.Println(err, sum.Runs, sum.OK())
	// Output: <nil> 50 true
}
