package frames

import "github.com/frameproof/frameproof/impl/pi"

// SnapshotEncoder is the naive reference encoder: after every event it
// records the whole observed message. It is obviously right and costs
// O(message) per event; the real encoder must be observably equal to it.
type SnapshotEncoder struct{ o *Observer }

// NewSnapshotEncoder returns a snapshot-per-event encoder.
func NewSnapshotEncoder(parse Parse) *SnapshotEncoder {
	return &SnapshotEncoder{o: NewObserver(parse)}
}

// Encode applies ev and returns the full message snapshot (nil before start).
func (s *SnapshotEncoder) Encode(ev *pi.Event) *pi.AssistantMessage {
	s.o.Observe(ev)
	return s.o.Message()
}
