package store

// PairwiseKeys is the most keys KeySet compares one by one before it keeps
// a set; an object pi stores has about eight.
const PairwiseKeys = 16

// KeySet finds the first repeated key among an object's members in linear
// time: pairwise among the first PairwiseKeys (no map for the usual row),
// through a set past them, so that a stored object of a million members
// is checked in linear time, not quadratic. The zero value is empty.
type KeySet struct {
	few  [PairwiseKeys]string
	n    int
	many map[string]struct{}
}

// Add reports whether k was added before, and adds it.
func (s *KeySet) Add(k string) (repeated bool) {
	if s.many == nil {
		for _, o := range s.few[:s.n] {
			if o == k {
				return true
			}
		}
		if s.n < PairwiseKeys {
			s.few[s.n], s.n = k, s.n+1
			return false
		}
		s.many = make(map[string]struct{}, 4*PairwiseKeys)
		for _, o := range s.few {
			s.many[o] = struct{}{}
		}
	}
	if _, dup := s.many[k]; dup {
		return true
	}
	s.many[k] = struct{}{}
	return false
}
